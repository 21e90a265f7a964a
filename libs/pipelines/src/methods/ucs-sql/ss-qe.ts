/** What SS-QE knows of one question: its final functions F and its complexity c = |I| + |F|. */
export interface StructureProfile { id: string; functions: readonly string[]; complexity: number }

export interface SsQeFilter { theta1: number; theta2: number; k: number }

export interface SsQeCandidates {
  ids: string[];
  /** True when fewer than one training question met the thresholds and the ranking fallback chose instead. */
  relaxed: boolean;
}

const overlap = (a: readonly string[], b: readonly string[]): number => a.filter((x) => b.includes(x)).length;

/**
 * Algorithm 1, lines 4-13: scan the training questions in order, keep those with |F ∩ F_i| >= θ1 and
 * |c - c_i| < θ2, stop at 2k. When the target has no functions (structure pipe ablated) the function test is
 * dropped. When nothing passes (the paper leaves this open) the 2k training questions ranked by overlap, then by
 * complexity distance, are used instead, flagged `relaxed`.
 */
export function ssQeCandidates(target: Omit<StructureProfile, 'id'>, training: readonly StructureProfile[], f: SsQeFilter): SsQeCandidates {
  const want = 2 * f.k;
  const useFunctions = target.functions.length > 0;
  const ids: string[] = [];
  for (const t of training) {
    if (ids.length >= want) break;
    const functionsOk = !useFunctions || overlap(target.functions, t.functions) >= f.theta1;
    if (functionsOk && Math.abs(target.complexity - t.complexity) < f.theta2) ids.push(t.id);
  }
  if (ids.length > 0 || want === 0) return { ids, relaxed: false };
  const ranked = training.map((t, order) => ({ id: t.id, order, shared: overlap(target.functions, t.functions), distance: Math.abs(target.complexity - t.complexity) }))
    .sort((a, b) => b.shared - a.shared || a.distance - b.distance || a.order - b.order);
  return { ids: ranked.slice(0, want).map((r) => r.id), relaxed: true };
}

/** Compares item ids in dataset order (`train-2` before `train-10`). */
export const compareItemIds = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/** Training item ids in dataset order. */
export function datasetOrder(ids: Iterable<string>): string[] {
  return [...ids].sort(compareItemIds);
}
