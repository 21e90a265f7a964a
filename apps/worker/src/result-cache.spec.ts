import { ResultCache } from './result-cache';

describe('ResultCache', () => {
  it('hands out what it cached, and nothing for a key it does not hold', () => {
    const cache = new ResultCache(1_000);
    cache.set('a', { sql: 'SELECT 1' }, 10);
    expect(cache.get('a')).toEqual({ output: { sql: 'SELECT 1' } });
    expect(cache.get('b')).toBeUndefined();
  });

  it('drops the least recently read first once the stored bytes pass the bound', () => {
    const cache = new ResultCache(30);
    cache.set('a', 1, 10);
    cache.set('b', 2, 10);
    cache.set('c', 3, 10);
    cache.get('a'); // read: now b is the least recently read
    cache.set('d', 4, 10);
    expect(['a', 'b', 'c', 'd'].filter((k) => cache.get(k))).toEqual(['a', 'c', 'd']);
    expect(cache.stats).toEqual({ entries: 3, bytes: 30 });
  });

  it('counts a key cached again once, and keeps nothing larger than the bound', () => {
    const cache = new ResultCache(30);
    cache.set('a', 1, 10);
    cache.set('a', 1, 12);
    expect(cache.stats).toEqual({ entries: 1, bytes: 12 });
    cache.set('huge', 'x', 31);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')).toEqual({ output: 1 });
  });

  it('freezes what it caches, to the leaves: a stage cannot change an output other stages read', () => {
    const cache = new ResultCache(1_000);
    const output = { examples: [{ id: 't1', tables: ['singer'] }], k: 1 };
    cache.set('a', output, 10);
    const read = cache.get('a')!.output as typeof output;
    expect(() => read.examples[0].tables.push('concert')).toThrow(TypeError);
    expect(() => { read.k = 2; }).toThrow(TypeError);
    expect(read).toEqual({ examples: [{ id: 't1', tables: ['singer'] }], k: 1 });
  });
});
