import type { DatabaseSchema } from '@sqlsweep/datasets';
import { columnKey, type ColumnId } from './schema-view';

const norm = (s: string): string => s.toLowerCase().replace(/[`"'[\]]/g, '').replace(/[\s_-]+/g, ' ').trim();

/** An identifier the LLM wrote, resolved against the schema: a column, a whole table, or nothing. */
export type ResolvedIdentifier = { kind: 'column'; column: ColumnId } | { kind: 'table'; table: string } | { kind: 'unknown'; raw: string };

/**
 * Resolves `table.column`, a bare column (first table that has it) or a table name, forgiving case, quoting,
 * underscores vs spaces. Names the schema lacks are `unknown` (recorded, not used).
 */
export function resolveIdentifier(raw: string, schema: DatabaseSchema): ResolvedIdentifier {
  const text = raw.trim();
  const dot = /^\s*[`"[]?([^`"\].]+)[`"\]]?\s*\.\s*[`"[]?([^`"\]]+)[`"\]]?\s*$/.exec(text);
  if (dot) {
    const table = schema.tables.find((t) => norm(t.name) === norm(dot[1]));
    const column = table?.columns.find((c) => norm(c.name) === norm(dot[2]));
    if (table && column) return { kind: 'column', column: { table: table.name, column: column.name } };
  }
  const table = schema.tables.find((t) => norm(t.name) === norm(text));
  if (table) return { kind: 'table', table: table.name };
  for (const t of schema.tables) {
    const column = t.columns.find((c) => norm(c.name) === norm(text));
    if (column) return { kind: 'column', column: { table: t.name, column: column.name } };
  }
  return { kind: 'unknown', raw: text };
}

/** Forward direction: question terms that name a table or column exactly (after normalising case and separators). */
export function termMatches(terms: readonly string[], schema: DatabaseSchema): ResolvedIdentifier[] {
  return terms.map((t) => resolveIdentifier(t, schema)).filter((r) => r.kind !== 'unknown');
}

/**
 * Backward direction: schema names that occur verbatim in the question (as whole words, separators normalised).
 * Names of two letters or fewer are ignored: they match too much prose.
 */
export function namesInQuestion(question: string, schema: DatabaseSchema): ResolvedIdentifier[] {
  const q = ` ${norm(question).replace(/[^a-z0-9 ]+/g, ' ')} `;
  const found: ResolvedIdentifier[] = [];
  const occurs = (name: string): boolean => {
    const n = norm(name).replace(/[^a-z0-9 ]+/g, ' ').trim();
    return n.length > 2 && q.includes(` ${n} `);
  };
  for (const t of schema.tables) {
    if (occurs(t.name)) found.push({ kind: 'table', table: t.name });
    for (const c of t.columns) if (occurs(c.name)) found.push({ kind: 'column', column: { table: t.name, column: c.name } });
  }
  return found;
}

/**
 * Foreign-key expansion: for every declared foreign key between two identified tables, both of its columns join
 * the candidate set (the paper's "Foreign Keys Combination").
 */
export function foreignKeyColumns(tables: readonly string[], schema: DatabaseSchema): ColumnId[] {
  const chosen = new Set(tables.map((t) => t.toLowerCase()));
  const out: ColumnId[] = [];
  for (const t of schema.tables) {
    if (!chosen.has(t.name.toLowerCase())) continue;
    for (const c of t.columns) {
      if (!c.references || !chosen.has(c.references.table.toLowerCase())) continue;
      const target = schema.tables.find((x) => x.name.toLowerCase() === c.references!.table.toLowerCase());
      const targetColumn = target?.columns.find((x) => x.name.toLowerCase() === c.references!.column.toLowerCase());
      out.push({ table: t.name, column: c.name });
      if (target && targetColumn) out.push({ table: target.name, column: targetColumn.name });
    }
  }
  return out;
}

/** The final identifiers and the bi-filtered schema they define. */
export interface BiFilteredSchema {
  tables: string[];
  columns: ColumnId[];
}

/**
 * The final identifiers as a bi-filtered schema: the tables and columns identified, in schema order. With
 * `codeAdditions` (not in the paper) a table named without any column also keeps its primary key, and the declared
 * foreign keys joining the chosen tables add both their columns.
 */
export function biFilter(identified: readonly ResolvedIdentifier[], schema: DatabaseSchema, opts: { codeAdditions: boolean }): BiFilteredSchema {
  const tableSet = new Set<string>();
  const columnSet = new Set<string>();
  for (const r of identified) {
    if (r.kind === 'column') { tableSet.add(r.column.table.toLowerCase()); columnSet.add(columnKey(r.column)); }
    if (r.kind === 'table') tableSet.add(r.table.toLowerCase());
  }
  if (opts.codeAdditions) {
    for (const t of schema.tables) {
      if (!tableSet.has(t.name.toLowerCase())) continue;
      const hasColumn = t.columns.some((c) => columnSet.has(columnKey({ table: t.name, column: c.name })));
      if (!hasColumn) for (const c of t.columns.filter((x) => x.primaryKey)) columnSet.add(columnKey({ table: t.name, column: c.name }));
    }
    for (const c of foreignKeyColumns([...tableSet], schema)) columnSet.add(columnKey(c));
  }
  const tables: string[] = [];
  const columns: ColumnId[] = [];
  for (const t of schema.tables) {
    if (!tableSet.has(t.name.toLowerCase())) continue;
    tables.push(t.name);
    for (const c of t.columns) if (columnSet.has(columnKey({ table: t.name, column: c.name }))) columns.push({ table: t.name, column: c.name });
  }
  return { tables, columns };
}
