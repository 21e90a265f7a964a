/** Marks the points no other point dominates: at least as accurate and at most as costly, strictly better in one. */
export function paretoFlags(points: Array<{ ex: number; costUsd: number }>): boolean[] {
  return points.map((p) => !points.some((q) => q.ex >= p.ex && q.costUsd <= p.costUsd && (q.ex > p.ex || q.costUsd < p.costUsd)));
}
