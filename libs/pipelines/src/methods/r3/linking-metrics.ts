import { goldTablesOf } from '@sqlsweep/retrieval';

/** Precision, recall and F1 of the linked tables against the tables the gold SQL reads (prefixed `linking.`). */
export function tableLinkingMetrics(linked: readonly string[], goldSql: string, schemaTables: readonly string[]): Record<string, number> {
  const gold = new Set(goldTablesOf(goldSql, schemaTables).tables);
  const hits = linked.filter((t) => gold.has(t)).length;
  const precision = linked.length ? hits / linked.length : 0;
  const recall = gold.size ? hits / gold.size : 1;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { 'linking.precision': precision, 'linking.recall': recall, 'linking.f1': f1, 'linking.tables': linked.length };
}
