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
