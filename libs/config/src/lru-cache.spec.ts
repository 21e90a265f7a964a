import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('drops the least recently used once over its bytes, and keeps nothing larger than all of them', () => {
    const cache = new LruCache<number>(30);
    cache.set('a', 1, 10);
    cache.set('b', 2, 10);
    cache.set('c', 3, 10);
    cache.get('a'); // now the most recently used
    cache.set('d', 4, 10);
    expect(['a', 'b', 'c', 'd'].map((k) => cache.get(k))).toEqual([1, undefined, 3, 4]);
    cache.set('huge', 5, 31);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.stats).toEqual({ entries: 3, bytes: 30, hits: 4, misses: 2 });
  });

  it('replaces a key set again without counting its old bytes', () => {
    const cache = new LruCache<number>(20);
    cache.set('a', 1, 10);
    cache.set('a', 9, 10);
    cache.set('b', 2, 10);
    expect([cache.get('a'), cache.get('b')]).toEqual([9, 2]);
  });
});
