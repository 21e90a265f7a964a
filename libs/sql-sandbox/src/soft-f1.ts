import type { SqlValue } from './sql-value';
import { sqlValueKey } from './sql-value';

/**
 * The releases of BIRD mini-dev's `calculate_f1_score` (evaluation_f1.py), which differ in what they score:
 * - `2024-06` (commit 8c7df91, llm/src/evaluation_f1.py, the release the published mini-dev Soft-F1 numbers come
 *   from): rows paired in Python set order; an extra gold row counts a false negative *and* a false positive (the
 *   second loop runs `range(len(ground_truth) - len(predicted))`); extra predicted rows are not counted; two empty
 *   results score 0 (tp = fp = fn = 0).
 * - `2024-07` (commit 1a78e71, also evaluation/evaluation_f1.py at 47f116d): two empty results score 1; an extra
 *   predicted row counts a false positive, an extra gold row a false negative; still set order.
 * - `2025-06` (commit bee73fe, evaluation/evaluation_f1.py at HEAD): as 2024-07, but rows are paired in the order
 *   the query returned them (`dict.fromkeys`), so nothing depends on hashing.
 */
export type SoftF1Version = '2024-06' | '2024-07' | '2025-06';
export const SOFT_F1_VERSIONS: readonly SoftF1Version[] = ['2024-06', '2024-07', '2025-06'];

export interface SoftF1Result {
  score: number;
  /**
   * True when the official value depends on the order Python iterates a set of rows (text is hashed with a
   * per-process seed), i.e. when another pairing of the rows would score differently. Then `score` is the value
   * for sqlsweep's documented order: both sides in the order SQLite returned them, first occurrence of a duplicate
   * kept. False means every pairing scores the same, so `score` is the official value exactly.
   */
  orderDependent: boolean;
}

/** Above this many (gold row, predicted row) pairs the pairing-invariance check is skipped: reported dependent. */
const MAX_PAIRS_CHECKED = 2_000_000;

interface Row {
  key: string;
  cells: string[];
}

/** Per pair: cells of the predicted row found in the gold row, the others, gold cells missing from it; over width. */
interface PairCounts {
  match: number;
  predOnly: number;
  truthOnly: number;
  width: number;
}

function rowMatch(pred: string[], gold: string[]): PairCounts {
  const goldSet = new Set(gold);
  const predSet = new Set(pred);
  let match = 0;
  for (const v of pred) if (goldSet.has(v)) match++;
  let truthOnly = 0;
  for (const v of gold) if (!predSet.has(v)) truthOnly++;
  return { match, predOnly: pred.length - match, truthOnly, width: gold.length };
}

const sameCounts = (a: PairCounts, b: PairCounts): boolean =>
  a.match * b.width === b.match * a.width && a.predOnly * b.width === b.predOnly * a.width && a.truthOnly * b.width === b.truthOnly * a.width;

/** Duplicate rows dropped (Python `==` on tuples, so 1 == 1.0), first occurrence kept, in the given order. */
function dedupeRows(rows: SqlValue[][]): Row[] {
  const seen = new Set<string>();
  const out: Row[] = [];
  for (const row of rows) {
    const cells = row.map(sqlValueKey);
    const key = JSON.stringify(cells);
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ key, cells });
    }
  }
  return out;
}

function f1(tp: number, fp: number, fn: number): number {
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

/** The official arithmetic over rows already in pairing order (position i pairs with position i). */
function scorePaired(pred: Row[], gold: Row[], version: SoftF1Version): number {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  gold.forEach((goldRow, i) => {
    if (i >= pred.length) {
      fn += 1;
      return;
    }
    const c = rowMatch(pred[i].cells, goldRow.cells);
    tp += c.match / c.width;
    fp += c.predOnly / c.width;
    fn += c.truthOnly / c.width;
  });
  if (version === '2024-06') fp += Math.max(0, gold.length - pred.length);
  else fp += Math.max(0, pred.length - gold.length);
  return f1(tp, fp, fn);
}

/**
 * Whether every pairing of the rows gives the same score. Unpaired rows contribute a constant per row, so it is
 * enough that a pair's counts depend only on the side all of whose rows get paired (the shorter one). Otherwise two
 * pairings exist that differ in one pair's counts; that is reported as order-dependent (conservative: a rare
 * compensating case is reported too, never the reverse).
 */
function pairingInvariant(pred: Row[], gold: Row[]): boolean {
  if (pred.length <= 1 && gold.length <= 1) return true;
  if (pred.length * gold.length > MAX_PAIRS_CHECKED) return false;
  const [short, long, shortIsGold] = gold.length <= pred.length ? [gold, pred, true] : [pred, gold, false];
  for (const s of short) {
    const counts = (l: Row) => (shortIsGold ? rowMatch(l.cells, s.cells) : rowMatch(s.cells, l.cells));
    const first = counts(long[0]);
    for (let j = 1; j < long.length; j++) if (!sameCounts(first, counts(long[j]))) return false;
  }
  return true;
}

/**
 * BIRD mini-dev Soft-F1 for one item, by the given release of the official script. Python set order is not
 * reproduced (it depends on PYTHONHASHSEED for text); where it matters the result says `orderDependent`. The
 * documented order: two equal row sets are paired identically (score 1, the official's usual value: CPython often,
 * not always, iterates two equal sets alike; on the BIRD sample one item scores 0.75 under some seeds); otherwise
 * both sides in the order SQLite returned them.
 */
export function softF1(pred: SqlValue[][], gold: SqlValue[][], version: SoftF1Version = '2024-06'): SoftF1Result {
  if (pred.length === 0 && gold.length === 0) return { score: version === '2024-06' ? 0 : 1, orderDependent: false };
  const g = dedupeRows(gold);
  let p = dedupeRows(pred);
  if (version === '2025-06') return { score: scorePaired(p, g, version), orderDependent: false };
  const goldKeys = new Set(g.map((r) => r.key));
  if (p.length === g.length && p.every((r) => goldKeys.has(r.key))) {
    const byKey = new Map(p.map((r) => [r.key, r]));
    p = g.map((r) => byKey.get(r.key)!);
  }
  return { score: scorePaired(p, g, version), orderDependent: !pairingInvariant(p, g) };
}
