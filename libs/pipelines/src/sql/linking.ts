import type { SchemaColumnRef } from './touched';

export interface LinkingSet { tables: string[]; columns: SchemaColumnRef[] }

export interface PrfScores { precision: number; recall: number; f1: number }

export interface LinkingMetrics { tables: PrfScores; columns: PrfScores }

function prf(predicted: Set<string>, gold: Set<string>): PrfScores {
  let hit = 0;
  for (const x of predicted) if (gold.has(x)) hit++;
  // Empty against empty is a perfect match; anything against an empty gold set has nothing to recall.
  const precision = predicted.size === 0 ? (gold.size === 0 ? 1 : 0) : hit / predicted.size;
  const recall = gold.size === 0 ? 1 : hit / gold.size;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/**
 * Schema-linking precision, recall and F1 of a predicted schema subset against the gold SQL's (case-insensitive
 * names; columns compared as table.column).
 */
export function linkingMetrics(predicted: LinkingSet, gold: LinkingSet): LinkingMetrics {
  const tables = (s: LinkingSet): Set<string> => new Set(s.tables.map((t) => t.toLowerCase()));
  const columns = (s: LinkingSet): Set<string> => new Set(s.columns.map((c) => `${c.table.toLowerCase()}.${c.column.toLowerCase()}`));
  return { tables: prf(tables(predicted), tables(gold)), columns: prf(columns(predicted), columns(gold)) };
}

/** The same scores flattened for a stage's `metrics`, names prefixed, e.g. `linking.table.recall`. */
export function linkingMetricEntries(prefix: string, m: LinkingMetrics): Record<string, number> {
  return {
    [`${prefix}.table.precision`]: m.tables.precision, [`${prefix}.table.recall`]: m.tables.recall, [`${prefix}.table.f1`]: m.tables.f1,
    [`${prefix}.column.precision`]: m.columns.precision, [`${prefix}.column.recall`]: m.columns.recall, [`${prefix}.column.f1`]: m.columns.f1,
  };
}
