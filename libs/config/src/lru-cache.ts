/**
 * Values by key, the least recently used dropped first once they take more than `maxBytes` (each value's size as its
 * caller counts it). What a value shares with its caller (copies, freezing) is the caller's choice.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(private readonly maxBytes: number) {}

  /** The value kept under `key`, which becomes the most recently used; undefined when none is. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key); // re-inserted: the most recently used
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` under `key` (replacing what was there), unless `bytes` alone pass the bound. */
  set(key: string, value: V, bytes: number): void {
    if (bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  get stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return { entries: this.entries.size, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }
}
