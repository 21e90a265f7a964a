import { softF1 } from './soft-f1';
import { vesReward, vesScore } from './ves';

describe('vesReward', () => {
  it('is sqrt of the mean per-run time ratio after 3-sigma outlier removal, 0 when wrong', () => {
    expect(vesReward(false, [10], [1])).toEqual({ reward: 0, timeRatio: 0 });
    expect(vesReward(true, [4, 4, 4], [1, 1, 1]).reward).toBeCloseTo(2);
    const gold = Array(20).fill(2);
    const pred = [...Array(19).fill(2), 0.001]; // one absurd run: ratio 2000, dropped as an outlier
    expect(vesReward(true, gold, pred).timeRatio).toBeCloseTo(1);
    expect(vesScore([2, 0, 1])).toBeCloseTo(100);
  });
});

describe('softF1', () => {
  it('gives 1 for identical and both-empty results, 0 for disjoint, partial credit otherwise', () => {
    expect(softF1([[1, 'a']], [[1, 'a']])).toBe(1);
    expect(softF1([], [])).toBe(1);
    expect(softF1([[2]], [[1]])).toBe(0);
    // gold 2 rows, pred has the first right and misses the second: tp 1, fn 1, fp 0 -> P 1, R 0.5
    expect(softF1([[1]], [[1], [2]])).toBeCloseTo(2 / 3);
    // half a row right: tp 0.5, fp 0.5, fn 0.5
    expect(softF1([[1, 'x']], [[1, 'a']])).toBeCloseTo(0.5);
    // equal row sets score 1 whatever their order or duplicates
    expect(softF1([['b', 2], ['a', 1], ['a', 1]], [['a', { real: 1 }], ['b', 2]])).toBe(1);
  });
});
