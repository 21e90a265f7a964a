import type { DatabaseSchema } from '@sqlsweep/datasets';
import { classifySql } from './classify';

export interface SchemaColumnRef { table: string; column: string }
export interface TouchedSchema { tables: string[]; columns: SchemaColumnRef[] }

/**
 * The tables and columns of `schema` that a SQL query reads, in the schema's own spelling and order. Aliases resolve
 * to their tables; an unqualified column belongs to every table of the query that has a column of that name (one, in
 * any query SQLite accepts). Names the schema lacks (forged names, result-column aliases) are left out.
 */
export function touchedSchema(sql: string, schema: DatabaseSchema): TouchedSchema {
  const pieces = classifySql(sql, schema);
  const tableByLower = new Map(schema.tables.map((t) => [t.name.toLowerCase(), t]));
  const usedTables = new Set<string>();
  for (const p of pieces) {
    const name = p.kind === 'table' ? p.name : p.kind === 'alias' ? p.table : undefined;
    if (name !== undefined && tableByLower.has(name.toLowerCase())) usedTables.add(name.toLowerCase());
  }
  const usedColumns = new Set<string>(); // `table\u0000column`, lower-cased
  for (const p of pieces) {
    if (p.kind !== 'column' || p.name === undefined) continue;
    const column = p.name.toLowerCase();
    const owners = p.table !== undefined ? [p.table.toLowerCase()] : [...usedTables];
    for (const owner of owners) {
      if (tableByLower.get(owner)?.columns.some((c) => c.name.toLowerCase() === column)) usedColumns.add(`${owner}\u0000${column}`);
    }
  }
  const tables: string[] = [];
  const columns: SchemaColumnRef[] = [];
  for (const table of schema.tables) {
    const t = table.name.toLowerCase();
    if (usedTables.has(t)) tables.push(table.name);
    for (const c of table.columns) if (usedColumns.has(`${t}\u0000${c.name.toLowerCase()}`)) columns.push({ table: table.name, column: c.name });
  }
  return { tables, columns };
}
