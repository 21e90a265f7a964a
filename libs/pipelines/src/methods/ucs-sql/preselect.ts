import type { DatabaseSchema } from '@sqlsweep/datasets';
import { resolveIdentifier } from './linking';
import { parseJsonAnswer } from '../../parse-json';
import { parseStringList, type Parsed } from './parse';
import { countColumns, type ColumnId } from './schema-view';

/** MAC-SQL's selector keeps at most this many columns of a table it does not keep whole (its "top 6"). */
export const SELECTOR_COLUMNS_PER_TABLE = 6;

/**
 * MAC-SQL's trigger: a schema is pruned when it has more than `aboveColumns` columns or more than
 * `aboveAverageColumns` columns per table (the floored mean, as MAC-SQL computes it).
 */
export function needsPreselect(schema: DatabaseSchema, aboveColumns: number, aboveAverageColumns: number): boolean {
  const total = countColumns(schema);
  const average = schema.tables.length ? Math.floor(total / schema.tables.length) : 0;
  return total > aboveColumns || average > aboveAverageColumns;
}

/** The selector's sub-database: the tables kept and, of each, the columns kept (schema order). */
export interface SelectedSchema { tables: string[]; columns: ColumnId[] }

type Decision = 'keep_all' | 'drop_all' | string[];

/**
 * The columns of one table the selector keeps from a column list, as MAC-SQL does: its primary and foreign-key
 * columns, the chosen ones, then the first columns in schema order until 6 when the table has more than 6.
 */
function keptColumns(table: DatabaseSchema['tables'][number], chosen: readonly string[]): ColumnId[] {
  const chosenKeys = new Set(chosen.map((c) => c.toLowerCase()));
  const kept = table.columns.filter((c) => c.primaryKey || c.references || chosenKeys.has(c.name.toLowerCase())).map((c) => c.name);
  if (table.columns.length > SELECTOR_COLUMNS_PER_TABLE) {
    for (const c of table.columns) {
      if (kept.length >= SELECTOR_COLUMNS_PER_TABLE) break;
      if (!kept.includes(c.name)) kept.push(c.name);
    }
  }
  return table.columns.filter((c) => kept.includes(c.name)).map((c) => ({ table: table.name, column: c.name }));
}

function decisionsOf(raw: string, schema: DatabaseSchema): Parsed<Map<string, Decision>> {
  const json = parseJsonAnswer(raw, '{');
  const decisions = new Map<string, Decision>();
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    for (const [name, value] of Object.entries(json as Record<string, unknown>)) {
      const resolved = resolveIdentifier(name, schema);
      if (resolved.kind !== 'table') continue;
      if (value === 'keep_all' || value === 'drop_all') decisions.set(resolved.table, value);
      else if (Array.isArray(value)) decisions.set(resolved.table, value.filter((v): v is string => typeof v === 'string'));
    }
    return decisions.size ? { ok: true, value: decisions } : { ok: false, error: `no known table among ${JSON.stringify(Object.keys(json))}` };
  }
  // A bare list of table names: those kept whole, the others dropped.
  const list = parseStringList(raw, 'table names');
  if (!list.ok) return { ok: false, error: 'expected a JSON object mapping table names to "keep_all", "drop_all" or a list of columns' };
  for (const name of list.value) {
    const resolved = resolveIdentifier(name, schema);
    if (resolved.kind === 'table') decisions.set(resolved.table, 'keep_all');
  }
  if (decisions.size === 0) return { ok: false, error: `no known table among ${JSON.stringify(list.value)}` };
  for (const t of schema.tables) if (!decisions.has(t.name)) decisions.set(t.name, 'drop_all');
  return { ok: true, value: decisions };
}

/**
 * The sub-database of a selector answer `{"table": "keep_all" | "drop_all" | ["column", ...]}`. A table the answer
 * leaves out is kept whole (as MAC-SQL does); a `drop_all` table goes. An answer that keeps no table is an error.
 */
export function parseSelection(raw: string, schema: DatabaseSchema): Parsed<SelectedSchema> {
  const decided = decisionsOf(raw, schema);
  if (!decided.ok) return decided;
  const tables: string[] = [];
  const columns: ColumnId[] = [];
  for (const t of schema.tables) {
    const decision = decided.value.get(t.name) ?? 'keep_all';
    if (decision === 'drop_all') continue;
    tables.push(t.name);
    columns.push(...(decision === 'keep_all' ? t.columns.map((c) => ({ table: t.name, column: c.name })) : keptColumns(t, decision)));
  }
  if (tables.length === 0) return { ok: false, error: 'the selector dropped every table' };
  return { ok: true, value: { tables, columns } };
}
