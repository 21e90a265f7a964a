import { compareItemIds } from './ss-qe';

/** A training question as DAIL selection sees it. */
export interface DailCandidate {
  id: string;
  /** Cosine similarity of the masked questions' embeddings. */
  questionSimilarity: number;
  /** Jaccard similarity of the SQL skeletons: the target's draft against the candidate's gold (0 without a draft). */
  querySimilarity: number;
}

export interface DailOptions { k: number; threshold: number }

export interface DailChoice extends DailCandidate {
  /** True when the candidate was prioritised for meeting the query-similarity threshold τ. */
  queryMatched: boolean;
}

/**
 * DAIL selection (Gao et al. 2024, 4.3): rank the candidates by question similarity; those whose query similarity
 * is at least τ come first, in that order, and when fewer than k do, the rest fill up in question-similarity order.
 * Equal question similarities fall to dataset order, so the choice is deterministic.
 */
export function dailSelection(candidates: readonly DailCandidate[], o: DailOptions): DailChoice[] {
  const ranked = [...candidates].sort((a, b) => b.questionSimilarity - a.questionSimilarity || compareItemIds(a.id, b.id));
  const matched = ranked.filter((c) => c.querySimilarity >= o.threshold).slice(0, o.k);
  const taken = new Set(matched.map((c) => c.id));
  const fill = ranked.filter((c) => !taken.has(c.id)).slice(0, Math.max(0, o.k - matched.length));
  return [...matched.map((c) => ({ ...c, queryMatched: true })), ...fill.map((c) => ({ ...c, queryMatched: false }))];
}

/**
 * Jaccard similarity of two token bags (a token counts as often as it occurs), as DAIL-SQL's reference code
 * computes query similarity. With plain sets, repeated tokens collapse: `SELECT COUNT ( * ) FROM _ WHERE _` and
 * the same count over a subquery, `... FROM ( SELECT _ FROM _ WHERE _ )`, would score 1.
 */
export function multisetJaccard(a: readonly string[], b: readonly string[]): number {
  const left = new Map<string, number>();
  for (const t of a) left.set(t, (left.get(t) ?? 0) + 1);
  let shared = 0;
  for (const t of b) {
    const n = left.get(t) ?? 0;
    if (n > 0) {
      shared++;
      left.set(t, n - 1);
    }
  }
  const union = a.length + b.length - shared;
  return union === 0 ? 0 : shared / union;
}
