import type { ExecutionResult } from './execution-result';
import { spiderOrderMatters } from './spider-prepare';
import { pythonSortKey, sqlValueKey, type SqlValue } from './sql-value';

export type EvalSemantics = 'spider' | 'bird';

/**
 * How BIRD EX compares rows. `set`: DAMO's evaluation.py, `set(pred) == set(gold)` (duplicates and row order
 * ignored, column order matters). `set-unordered-cells`: the same after sorting the values within each row, so
 * column order is free. `bag`: the proposed duplicate-preserving variant, equal as multisets of rows.
 */
export type BirdRowSemantics = 'set' | 'set-unordered-cells' | 'bag';

export interface ComparisonVerdict {
  correct: boolean;
  /** Why: 'match', 'pred-error: ...', 'pred-timeout', 'row-count', 'column-count', 'row-mismatch', ... */
  reason: string;
}

type Row = SqlValue[];
const rowKey = (row: Row): string => JSON.stringify(row.map(sqlValueKey));

function failureReason(which: 'gold' | 'pred', r: ExecutionResult): string | undefined {
  if (r.status === 'timeout') return `${which}-timeout`;
  if (r.status === 'error') return `${which}-error (${r.errorKind}): ${r.message}`;
  if (r.truncated) return `${which}-truncated: result over the row or size cap, cannot be compared`;
  return undefined;
}

/**
 * Compares a prediction's result with the gold's as the official scripts do. `spider`: test-suite-sql-eval
 * `result_eq` (column permutations, multiset or ordered list iff the gold has ORDER BY). `bird`: evaluation.py's
 * `set(pred) == set(gold)`. Run both queries with the official rewrites first (see spiderPrepare).
 */
export function compareExecution(
  semantics: EvalSemantics,
  gold: ExecutionResult,
  pred: ExecutionResult,
  ctx: { goldSql: string; birdRows?: BirdRowSemantics },
): ComparisonVerdict {
  const goldFailure = failureReason('gold', gold);
  if (goldFailure) return { correct: false, reason: goldFailure };
  const predFailure = failureReason('pred', pred);
  if (predFailure) return { correct: false, reason: predFailure };
  if (gold.status !== 'ok' || pred.status !== 'ok') return { correct: false, reason: 'not comparable' };
  if (semantics === 'bird') {
    const undecodable = hasReplacementChar(gold.rows) ? 'gold' : hasReplacementChar(pred.rows) ? 'pred' : undefined;
    // Python's sqlite3 (default text_factory) raises on invalid UTF-8, and BIRD's script scores the item 0.
    if (undecodable) return { correct: false, reason: `${undecodable}-error (decode): text that is not valid UTF-8 (Python's sqlite3 cannot decode it)` };
    return birdRowsEqual(gold.rows, pred.rows, ctx.birdRows ?? 'set');
  }
  // test-suite-sql-eval decodes text with errors="ignore": invalid bytes vanish (better-sqlite3 made them U+FFFD).
  return spiderResultEqual(dropReplacementChars(gold.rows), dropReplacementChars(pred.rows), spiderOrderMatters(ctx.goldSql));
}

const REPLACEMENT = '\uFFFD';
const hasReplacementChar = (rows: Row[]): boolean => rows.some((row) => row.some((v) => typeof v === 'string' && v.includes(REPLACEMENT)));
const dropReplacementChars = (rows: Row[]): Row[] =>
  hasReplacementChar(rows) ? rows.map((row) => row.map((v) => (typeof v === 'string' ? v.split(REPLACEMENT).join('') : v))) : rows;

function birdRowsEqual(gold: Row[], pred: Row[], how: BirdRowSemantics): ComparisonVerdict {
  const key = how === 'set-unordered-cells' ? unorderRow : rowKey;
  const goldKeys = gold.map(key);
  const predKeys = pred.map(key);
  if (how === 'bag') {
    return multisetEqual(goldKeys, predKeys) ? { correct: true, reason: 'match' } : { correct: false, reason: 'row-multiset-mismatch' };
  }
  const goldSet = new Set(goldKeys);
  const predSet = new Set(predKeys);
  if (goldSet.size !== predSet.size) return { correct: false, reason: 'row-set-size' };
  for (const k of predSet) if (!goldSet.has(k)) return { correct: false, reason: 'row-mismatch' };
  return { correct: true, reason: 'match' };
}

/** test-suite-sql-eval `unorder_row`: a row's values sorted by `str(x) + str(type(x))`. */
function unorderRow(row: Row): string {
  const sorted = row
    .map((v) => ({ v, k: pythonSortKey(v) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return rowKey(sorted.map((e) => e.v));
}

function sameSet(a: string[], b: string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size !== sb.size) return false;
  for (const k of sa) if (!sb.has(k)) return false;
  return true;
}

function multisetEqual(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const k of a) counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of b) {
    const n = counts.get(k);
    if (!n) return false;
    counts.set(k, n - 1);
  }
  return true;
}

function* product(choices: number[][], prefix: number[] = []): Generator<number[]> {
  if (prefix.length === choices.length) {
    yield prefix;
    return;
  }
  for (const c of choices[prefix.length]) yield* product(choices, [...prefix, c]);
}

/**
 * Candidate column permutations. Up to 3 columns: all of them. Wider: the official script keeps, for each gold
 * column, only the predicted columns whose values on 20 randomly sampled rows all occur in that gold column. We
 * test every row instead of a random sample: deterministic, and it only removes permutations that cannot match.
 */
function candidatePermutations(gold: Row[], pred: Row[], numCols: number): Generator<number[]> {
  const all = Array.from({ length: numCols }, (_, i) => i);
  const constraints = all.map(() => new Set(all));
  if (numCols > 3) {
    const goldColumnSets = all.map((c) => new Set(gold.map((row) => sqlValueKey(row[c]))));
    for (const row of pred) {
      for (let g = 0; g < numCols; g++) {
        for (const p of [...constraints[g]]) {
          if (!goldColumnSets[g].has(sqlValueKey(row[p]))) constraints[g].delete(p);
        }
      }
    }
  }
  return product(constraints.map((s) => [...s]));
}

function spiderResultEqual(gold: Row[], pred: Row[], orderMatters: boolean): ComparisonVerdict {
  if (gold.length === 0 && pred.length === 0) return { correct: true, reason: 'match (both empty)' };
  if (gold.length !== pred.length) return { correct: false, reason: `row-count (gold ${gold.length}, pred ${pred.length})` };
  const numCols = gold[0].length;
  if (pred[0].length !== numCols) return { correct: false, reason: `column-count (gold ${numCols}, pred ${pred[0].length})` };
  const goldUnordered = gold.map(unorderRow);
  const predUnordered = pred.map(unorderRow);
  const quickMatch = orderMatters
    ? goldUnordered.every((k, i) => k === predUnordered[i])
    : sameSet(goldUnordered, predUnordered);
  if (!quickMatch) return { correct: false, reason: orderMatters ? 'row-mismatch (ordered)' : 'row-mismatch' };
  const goldKeys = gold.map(rowKey);
  for (const perm of candidatePermutations(gold, pred, numCols)) {
    if (new Set(perm).size !== perm.length) continue;
    const permuted = numCols === 1 ? pred.map(rowKey) : pred.map((row) => rowKey(perm.map((i) => row[i])));
    if (orderMatters) {
      if (goldKeys.every((k, i) => k === permuted[i])) return { correct: true, reason: 'match' };
    } else if (sameSet(goldKeys, permuted) && multisetEqual(goldKeys, permuted)) {
      return { correct: true, reason: 'match' };
    }
  }
  return { correct: false, reason: orderMatters ? 'order-or-column-mismatch' : 'multiset-mismatch' };
}
