import type { TokenMatrix } from '../token-matrix';

/**
 * Recent encodings by text, least recently used dropped first once they hold more than `maxBytes` of floats. Entries
 * and what `get` returns are copies, so a caller that changes its vectors changes no one else's.
 */
export class EncodingCache {
  private readonly entries = new Map<string, TokenMatrix>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): TokenMatrix | undefined {
    const kept = this.entries.get(key);
    if (!kept) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key); // re-inserted: the most recently used
    this.entries.set(key, kept);
    return copy(kept);
  }

  set(key: string, matrix: TokenMatrix): void {
    const size = matrix.data.byteLength;
    if (size > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.data.byteLength;
    }
    this.entries.set(key, copy(matrix));
    this.bytes += size;
    for (const [oldest, kept] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= kept.data.byteLength;
    }
  }
}

/** A matrix with a buffer of its own: `slice` copies only its rows, not the batch's buffer it may be a view of. */
const copy = (m: TokenMatrix): TokenMatrix => ({ rows: m.rows, dim: m.dim, data: m.data.slice() });
