import type { DatabaseSchema, TableSchema } from '@sqlsweep/datasets';

/** A column named as `table.column`, in the schema's own spelling. */
export interface ColumnId { table: string; column: string }

export const columnKey = (c: ColumnId): string => `${c.table.toLowerCase()}.${c.column.toLowerCase()}`;

export function countColumns(schema: DatabaseSchema): number {
  return schema.tables.reduce((n, t) => n + t.columns.length, 0);
}

/**
 * The schema restricted to some tables and, when `columns` is given, to those columns of them (schema order kept).
 * A listed table none of whose columns is listed stays, with no columns: it was named on its own.
 */
export function subSchema(schema: DatabaseSchema, tables: readonly string[], columns?: readonly ColumnId[]): DatabaseSchema {
  const keepTables = new Set(tables.map((t) => t.toLowerCase()));
  const keepColumns = columns ? new Set(columns.map(columnKey)) : undefined;
  const kept: TableSchema[] = [];
  for (const t of schema.tables) {
    if (!keepTables.has(t.name.toLowerCase())) continue;
    const cols = keepColumns ? t.columns.filter((c) => keepColumns.has(columnKey({ table: t.name, column: c.name }))) : t.columns;
    kept.push({ ...t, columns: cols });
  }
  return { ...schema, tables: kept };
}

/** Every table and column of a schema, as a linking set (what a whole schema "predicts"). */
export function schemaAsLinkingSet(schema: DatabaseSchema): { tables: string[]; columns: ColumnId[] } {
  return { tables: schema.tables.map((t) => t.name), columns: schema.tables.flatMap((t) => t.columns.map((c) => ({ table: t.name, column: c.name }))) };
}

/** The declared foreign keys between tables of the schema, one `a`.`x` = `b`.`y` line each; '(none declared)' if none. */
export function renderForeignKeys(schema: DatabaseSchema): string {
  const present = new Set(schema.tables.map((t) => t.name.toLowerCase()));
  const lines = schema.tables.flatMap((t) => t.columns.flatMap((c) =>
    c.references && present.has(c.references.table.toLowerCase()) ? [`- \`${t.name}\`.\`${c.name}\` = \`${c.references.table}\`.\`${c.references.column}\``] : []));
  return lines.length ? lines.join('\n') : '(none declared)';
}

type Column = TableSchema['columns'][number];

/**
 * A column's line, by column object: an item's prompts (and the planner's estimate of each variant's) render the same
 * database's columns again and again, and the schemas they cut out of it (`subSchema`) keep its column objects.
 */
const columnLines = new WeakMap<Column, { table: string; line: string }>();

function describeColumn(t: TableSchema, c: Column): string {
  const known = columnLines.get(c);
  if (known?.table === t.name) return known.line;
  const line = columnLine(t, c);
  columnLines.set(c, { table: t.name, line });
  return line;
}

function columnLine(t: TableSchema, c: Column): string {
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
