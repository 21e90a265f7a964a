import type { SqlValue } from './sql-value';
import { sqlValueKey } from './sql-value';

/**
 * BIRD mini-dev Soft-F1 (evaluation_f1.py) for one item: duplicate rows dropped, then predicted and gold rows
 * paired by position; per pair, cells of the predicted row found in the gold row are matches, the others
 * predicted-only, gold cells missing from the predicted row gold-only, each divided by the gold row's width;
 * unpaired rows count 1 as predicted-only or gold-only. Deviation, named: the official script pairs rows in
 * Python set order (hash order, random per process for text, but the same for two equal sets); here both sides
 * are sorted by a canonical row key, which keeps that property (equal row sets score 1) and is deterministic.
 */
export function softF1(pred: SqlValue[][], gold: SqlValue[][]): number {
  if (pred.length === 0 && gold.length === 0) return 1;
  const p = dedupeRows(pred);
  const g = dedupeRows(gold);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  g.forEach((goldRow, i) => {
    if (i >= p.length) {
      fn += 1;
      return;
    }
    const predRow = p[i];
    const width = goldRow.length;
    const goldSet = new Set(goldRow);
    const predSet = new Set(predRow);
    tp += predRow.filter((v) => goldSet.has(v)).length / width;
    fp += predRow.filter((v) => !goldSet.has(v)).length / width;
    fn += goldRow.filter((v) => !predSet.has(v)).length / width;
  });
  fp += Math.max(0, p.length - g.length);
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

/** Rows as arrays of value keys (so 1 == 1.0), duplicates removed, sorted by their canonical key. */
function dedupeRows(rows: SqlValue[][]): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const row of rows) {
    const keys = row.map(sqlValueKey);
    const key = JSON.stringify(keys);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(keys);
    }
  }
  return out.sort((a, b) => {
    const ka = JSON.stringify(a);
    const kb = JSON.stringify(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}
