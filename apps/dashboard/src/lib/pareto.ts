export interface CostAccuracy { ex: number; costUsd: number }

/** Points no other point beats: at least as accurate and at most as costly, and strictly better in one. */
export function paretoFront<T extends CostAccuracy>(points: T[]): Set<T> {
  return new Set(points.filter((p) => !points.some((q) => q !== p && q.ex >= p.ex && q.costUsd <= p.costUsd && (q.ex > p.ex || q.costUsd < p.costUsd))));
}
