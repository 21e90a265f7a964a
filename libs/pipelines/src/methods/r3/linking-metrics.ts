import type { DatabaseSchema } from '@sqlsweep/datasets';
import { linkingMetricEntries, linkingMetrics, touchedSchema } from '../../sql';

/**
 * Schema-linking precision/recall/F1 of the linked tables, and of their columns (R3 shows every column of a linked
 * table), against what the gold SQL touches: `linking.table.*` and `linking.column.*`, as the other methods report.
 */
export function tableLinkingMetrics(linked: readonly string[], goldSql: string, schema: DatabaseSchema): Record<string, number> {
  const keep = new Set(linked);
  const columns = schema.tables.filter((t) => keep.has(t.name)).flatMap((t) => t.columns.map((c) => ({ table: t.name, column: c.name })));
  return { ...linkingMetricEntries('linking', linkingMetrics({ tables: [...linked], columns }, touchedSchema(goldSql, schema))), 'linking.tables': linked.length };
}
