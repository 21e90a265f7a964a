import type { DatabaseSchema, TableSchema } from '@sqlsweep/datasets';

/** A column named as `table.column`, in the schema's own spelling. */
export interface ColumnId { table: string; column: string }

export const columnKey = (c: ColumnId): string => `${c.table.toLowerCase()}.${c.column.toLowerCase()}`;

export function countColumns(schema: DatabaseSchema): number {
  return schema.tables.reduce((n, t) => n + t.columns.length, 0);
}

/** The schema restricted to some tables and, when `columns` is given, to those columns of them (schema order kept). */
export function subSchema(schema: DatabaseSchema, tables: readonly string[], columns?: readonly ColumnId[]): DatabaseSchema {
  const keepTables = new Set(tables.map((t) => t.toLowerCase()));
  const keepColumns = columns ? new Set(columns.map(columnKey)) : undefined;
  const kept: TableSchema[] = [];
  for (const t of schema.tables) {
    if (!keepTables.has(t.name.toLowerCase())) continue;
    const cols = keepColumns ? t.columns.filter((c) => keepColumns.has(columnKey({ table: t.name, column: c.name }))) : t.columns;
    if (cols.length > 0) kept.push({ ...t, columns: cols });
  }
  return { ...schema, tables: kept };
}

function describeColumn(t: TableSchema, c: TableSchema['columns'][number]): string {
  const parts = [`- \`${t.name}\`.\`${c.name}\` (${c.type || 'ANY'}${c.primaryKey ? ', primary key' : ''}${c.references ? `, references ${c.references.table}.${c.references.column}` : ''})`];
  const description = [c.description, c.valueDescription].filter((d) => d && d.trim()).join('; ');
  if (description) parts.push(`: ${description.replace(/\s+/g, ' ').trim()}`);
  if (c.sampleValues.length > 0) parts.push(` e.g. ${c.sampleValues.slice(0, 3).map((v) => JSON.stringify(v)).join(', ')}`);
  return parts.join('');
}

/**
 * The schema as one line per column with its description and sample values (the paper keeps column descriptions
 * in the pre-filtered schema). Columns are written `table`.`column`, the identifier format the stages answer in.
 */
export function renderSchemaLines(schema: DatabaseSchema): string {
  return schema.tables.map((t) => [`# Table ${t.name}`, ...t.columns.map((c) => describeColumn(t, c))].join('\n')).join('\n');
}
