import { LruCache } from '@sqlsweep/config';
import type { TokenMatrix } from '../token-matrix';

/**
 * Recent encodings by text, least recently used dropped first once they hold more than `maxBytes` of floats. Entries
 * and what `get` returns are copies, so a caller that changes its vectors changes no one else's.
 */
export class EncodingCache {
  private readonly kept: LruCache<TokenMatrix>;

  constructor(maxBytes: number) {
    this.kept = new LruCache(maxBytes);
  }

  get hits(): number {
    return this.kept.stats.hits;
  }

  get misses(): number {
    return this.kept.stats.misses;
  }

  get(key: string): TokenMatrix | undefined {
    const kept = this.kept.get(key);
    return kept && copy(kept);
  }

  set(key: string, matrix: TokenMatrix): void {
    this.kept.set(key, copy(matrix), matrix.data.byteLength);
  }
}

/** A matrix with a buffer of its own: `slice` copies only its rows, not the batch's buffer it may be a view of. */
const copy = (m: TokenMatrix): TokenMatrix => ({ rows: m.rows, dim: m.dim, data: m.data.slice() });
