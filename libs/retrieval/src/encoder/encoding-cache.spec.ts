import type { TokenMatrix } from '../token-matrix';
import { EncodingCache } from './encoding-cache';

const matrix = (rows: number, fill: number): TokenMatrix => ({ rows, dim: 4, data: new Float32Array(rows * 4).fill(fill) });

describe('EncodingCache', () => {
  it('answers a kept text with a copy of its own, and counts hits and misses', () => {
    const cache = new EncodingCache(1024);
    const batch = new Float32Array(16).fill(7);
    // A view of a larger batch buffer: the kept copy holds only its rows.
    cache.set('a', { rows: 2, dim: 4, data: batch.subarray(0, 8) });
    batch.fill(0);
    const first = cache.get('a')!;
    expect(first.rows).toBe(2);
    expect(first.data.buffer.byteLength).toBe(32);
    expect([...first.data]).toEqual(new Array(8).fill(7));
    first.data.fill(-1);
    expect([...cache.get('a')!.data]).toEqual(new Array(8).fill(7));
    expect(cache.get('b')).toBeUndefined();
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 2, misses: 1 });
  });

  it('drops the least recently used texts once over its bytes, and never keeps one larger than all of them', () => {
    const cache = new EncodingCache(3 * 16); // three one-row matrices of 4 floats
    cache.set('a', matrix(1, 1));
    cache.set('b', matrix(1, 2));
    cache.set('c', matrix(1, 3));
    cache.get('a'); // now the most recently used
    cache.set('d', matrix(1, 4));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.data[0]).toBe(1);
    expect(cache.get('c')?.data[0]).toBe(3);
    expect(cache.get('d')?.data[0]).toBe(4);
    cache.set('huge', matrix(4, 5));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')?.data[0]).toBe(1);
  });

  it('replaces a text set again without counting its old bytes', () => {
    const cache = new EncodingCache(2 * 16);
    cache.set('a', matrix(1, 1));
    cache.set('a', matrix(1, 9));
    cache.set('b', matrix(1, 2));
    expect(cache.get('a')?.data[0]).toBe(9);
    expect(cache.get('b')?.data[0]).toBe(2);
  });
});
