import { createHash } from 'node:crypto';

/**
 * Simulates automatic prompt caching as OpenAI describes it: prompts of at least 1024 tokens are cached in
 * 128-token increments, and a later prompt reuses the longest previously seen prefix.
 */
export class PrefixCache {
  private readonly seen = new Set<string>();

  constructor(private readonly maxEntries = 200_000) {}

  /** Returns the number of leading tokens served from cache, then remembers this prompt's prefixes. */
  lookupAndStore(scope: string, tokens: readonly number[]): number {
    if (tokens.length < 1024) return 0;
    const hash = createHash('sha1').update(scope);
    let cached = 0;
    let done = 0;
    for (let boundary = 1024; boundary <= tokens.length; boundary += 128) {
      hash.update(Uint32Array.from(tokens.slice(done, boundary)));
      done = boundary;
      const key = hash.copy().digest('base64');
      if (this.seen.has(key)) cached = boundary;
      else this.remember(key);
    }
    return cached;
  }

  /** Anthropic-style explicit breakpoint: a prefix is either read from cache or written to it. */
  breakpoint(scope: string, prefixText: string): boolean {
    const key = createHash('sha1').update(scope).update('\u0000').update(prefixText).digest('base64');
    if (this.seen.has(key)) return true;
    this.remember(key);
    return false;
  }

  private remember(key: string): void {
    if (this.seen.size >= this.maxEntries) this.seen.clear();
    this.seen.add(key);
  }
}
