/**
 * BIRD's VES reward for one item, following evaluation_ves.py: per iteration the ratio gold time / predicted
 * time, ratios outside mean +- 3 population standard deviations dropped (strict bounds, as numpy there), the
 * mean of the rest, and reward = sqrt(mean ratio). Incorrect items score 0. When every ratio is identical the
 * official script divides by zero; here the ratios are kept as they are.
 */
export function vesReward(correct: boolean, goldTimesMs: number[], predTimesMs: number[]): { reward: number; timeRatio: number } {
  if (!correct) return { reward: 0, timeRatio: 0 };
  const n = Math.min(goldTimesMs.length, predTimesMs.length);
  if (n === 0) throw new Error('vesReward: needs at least one timing of each query');
  // A query that finishes below the timer's resolution would divide by zero: floor at 1 microsecond.
  const ratios = Array.from({ length: n }, (_, i) => Math.max(goldTimesMs[i], 1e-3) / Math.max(predTimesMs[i], 1e-3));
  const kept = dropOutliers(ratios);
  const timeRatio = kept.reduce((a, b) => a + b, 0) / kept.length;
  return { reward: Math.sqrt(timeRatio), timeRatio };
}

function dropOutliers(xs: number[]): number[] {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  const kept = xs.filter((x) => x < mean + 3 * sd && x > mean - 3 * sd);
  return kept.length > 0 ? kept : xs;
}

/** VES = 100 x mean reward over all items (incorrect ones count as 0). */
export function vesScore(rewards: number[]): number {
  return rewards.length === 0 ? 0 : (100 * rewards.reduce((a, b) => a + b, 0)) / rewards.length;
}
