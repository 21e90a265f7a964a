import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** The claim operations of a ResponseCacheStore that collapses identical calls across processes. */
export interface ClaimStore {
  claim(key: string, owner: string, ttlMs: number): Promise<boolean>;
  renew(keys: string[], owner: string, ttlMs: number): Promise<string[]>;
  release(key: string, owner: string): Promise<void>;
}

/** How long a claim lives without renewal, and how often its live owner renews it. */
export interface ClaimLifetime {
  ttlMs: number;
  renewEveryMs: number;
}

export const DEFAULT_CLAIM_TTL_MS = 10_000;

/** renewEveryMs defaults to a fifth of the TTL: four renewals can fail before a live owner's claim lapses. */
export function claimLifetime(opts: { ttlMs?: number; renewEveryMs?: number } = {}): ClaimLifetime {
  const ttlMs = opts.ttlMs ?? DEFAULT_CLAIM_TTL_MS;
  const renewEveryMs = opts.renewEveryMs ?? Math.max(50, Math.floor(ttlMs / 5));
  if (!(ttlMs > 0) || !(renewEveryMs > 0) || renewEveryMs >= ttlMs) {
    throw new Error(`LLM claim lifetime: renewEveryMs (${renewEveryMs}) must be positive and below ttlMs (${ttlMs})`);
  }
  return { ttlMs, renewEveryMs };
}

/** One id per live client: host, pid and a random part (a pid can be reused, and one process may hold two clients). */
export function newClaimOwner(): string {
  return `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
}

/** While renewals fail (the store is unreachable), they are retried this often so claims are back soon after it is. */
const RETRY_AFTER_FAILED_RENEWAL_MS = 250;

/**
 * The claims one live client holds on LLM calls in flight. All of them are renewed together, every `renewEveryMs`,
 * until released, so a claim outlives a slow call but lapses within `ttlMs` of its owner's death. A failed renewal
 * never stops a call: the store may be down for a moment, or have lost the claims in a crash, and the next renewal
 * that gets through puts them back.
 */
export class ClaimKeeper {
  private readonly held = new Set<string>();
  private timer?: NodeJS.Timeout;
  private renewing = false;
  private closed = false;

  constructor(
    private readonly store: ClaimStore,
    private readonly lifetime: ClaimLifetime,
    private readonly log: (obj: object) => void,
    readonly owner: string = newClaimOwner(),
  ) {}

  async claim(key: string): Promise<boolean> {
    return (await this.claimWith(key, async (owner, ttlMs) => ({ claimed: await this.store.claim(key, owner, ttlMs) }))).claimed;
  }

  /** Claims `key` through `attempt`, a store call that may do more in the same round trip (a look-up), and holds it if claimed. */
  async claimWith<T extends { claimed: boolean }>(key: string, attempt: (owner: string, ttlMs: number) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('LlmClient is closed');
    const result = await attempt(this.owner, this.lifetime.ttlMs);
    if (result.claimed) {
      this.held.add(key);
      this.schedule(this.lifetime.renewEveryMs);
    }
    return result;
  }

  /**
   * Ends the claim on `key` through `end`, a store call that deletes it along with other work (storing the response).
   * When `end` fails the claim is still held, and renewed, as before; the error is the caller's.
   */
  async releaseWith(key: string, end: (owner: string) => Promise<void>): Promise<void> {
    const held = this.held.delete(key);
    try {
      await end(this.owner);
    } catch (err) {
      if (held && !this.closed) {
        this.held.add(key);
        this.schedule(this.lifetime.renewEveryMs);
      }
      throw err;
    }
  }

  /** Stops renewing `key` and deletes its claim; a failed delete only leaves the claim to lapse. */
  async release(key: string): Promise<void> {
    if (!this.held.delete(key)) return;
    await this.deleteClaim(key);
  }

  /** A failed delete only leaves the claim to lapse. */
  private async deleteClaim(key: string): Promise<void> {
    try {
      await this.store.release(key, this.owner);
    } catch (err) {
      this.log({ msg: 'llm claim release failed: it lapses on its own', key, err: (err as Error).message });
    }
  }

  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** Stops renewing; claims still held lapse after their TTL. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.held.clear();
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.renewing || this.closed || this.held.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.renew();
    }, delayMs);
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const keys = [...this.held];
    let nextMs = this.lifetime.renewEveryMs;
    this.renewing = true;
    try {
      const renewed = new Set(await this.store.renew(keys, this.owner, this.lifetime.ttlMs));
      const lost = keys.filter((k) => !renewed.has(k) && this.held.has(k));
      if (lost.length > 0) this.log({ severity: 'warn', msg: 'llm claims taken over by another process while renewals failed; the calls go on', keys: lost });
      // A renewal puts back claims it finds missing, so one whose release ran while it was on its way is back: deleted
      // again, or it would stand for a whole TTL after its call has ended.
      for (const key of keys) if (renewed.has(key) && !this.held.has(key)) await this.deleteClaim(key);
    } catch (err) {
      nextMs = Math.min(nextMs, RETRY_AFTER_FAILED_RENEWAL_MS);
      this.log({ msg: 'llm claim renewal failed; the calls go on and renewing is retried', claims: keys.length, err: (err as Error).message });
    } finally {
      this.renewing = false;
    }
    this.schedule(nextMs);
  }
}
