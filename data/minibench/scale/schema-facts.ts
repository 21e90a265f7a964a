/**
 * What the scale generator knows about one minibench database: its tables and columns (from tables.json, with the
 * readable names questions use) and, per column, a role and a deterministic sample of the values stored in it (read
 * from the SQLite file), so generated filters name values that exist.
 */
import type Database from 'better-sqlite3';

/** How a column can be used by a template. */
export type ColumnRole =
  /** Primary or foreign key, or a `*_id` column: joined on, never shown or filtered by value. */
  | 'key'
  /** Text with few distinct values (country, status): filtered by equality, grouped by. */
  | 'category'
  /** Text with many distinct values (names, titles): shown, filtered by equality. */
  | 'label'
  /** Integer or real measure: compared, aggregated, ordered by. */
  | 'number'
  /** Date or datetime text: compared, ordered by. */
  | 'date';

export interface ColumnFacts {
  table: string;
  /** Column name in SQL. */
  name: string;
  /** Readable name from tables.json (`column_names`), used in questions. */
  readable: string;
  role: ColumnRole;
  /** Distinct non-null values in ascending order, at most SAMPLE_SIZE, evenly spread over all distinct values. */
  values: Array<string | number>;
}

export interface TableFacts {
  name: string;
  readable: string;
  rows: number;
  /** Single-column primary key, when the table has one (tie-break of ORDER BY ... LIMIT). */
  primaryKey?: string;
  columns: ColumnFacts[];
}

export interface ForeignKeyFacts {
  child: string;
  childColumn: string;
  parent: string;
  parentColumn: string;
}

export interface DatabaseFacts {
  dbId: string;
  tables: TableFacts[];
  /** Single-column foreign keys between two different tables. */
  foreignKeys: ForeignKeyFacts[];
}

/** The tables.json fields the generator reads. */
export interface TablesJsonEntryRaw {
  db_id: string;
  table_names_original: string[];
  table_names: string[];
  column_names_original: Array<[number, string]>;
  column_names: Array<[number, string]>;
  column_types: string[];
  primary_keys: Array<number | number[]>;
  foreign_keys: Array<[number, number]>;
}

const SAMPLE_SIZE = 40;
/** Text columns with at most this many distinct values are categories. */
const CATEGORY_MAX_DISTINCT = 40;
/** Values longer than this, or with quotes or line breaks, are not used in questions. */
const VALUE_MAX_LENGTH = 40;

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function usableValue(v: unknown): v is string | number {
  if (typeof v === 'number') return Number.isFinite(v);
  return typeof v === 'string' && v.length > 0 && v.length <= VALUE_MAX_LENGTH && !/['"\n\r\t]/.test(v) && v.trim() === v;
}

/** Evenly spread pick of at most n entries, first and last included. */
function spread<T>(all: T[], n: number): T[] {
  if (all.length <= n) return all;
  return Array.from({ length: n }, (_, i) => all[Math.round((i * (all.length - 1)) / (n - 1))]!);
}

export function readDatabaseFacts(entry: TablesJsonEntryRaw, db: Database.Database): DatabaseFacts {
  const keyColumns = new Set<number>();
  const singlePk = new Map<number, number>();
  for (const pk of entry.primary_keys) {
    if (Array.isArray(pk)) pk.forEach((c) => keyColumns.add(c));
    else {
      keyColumns.add(pk);
      singlePk.set(entry.column_names_original[pk]![0], pk);
    }
  }
  for (const [a, b] of entry.foreign_keys) {
    keyColumns.add(a);
    keyColumns.add(b);
  }
  const tables: TableFacts[] = entry.table_names_original.map((name, t) => {
    const rows = (db.prepare(`SELECT COUNT(*) AS n FROM ${quoteIdent(name)}`).get() as { n: number }).n;
    const pk = singlePk.get(t);
    return { name, readable: entry.table_names[t] ?? name, rows, primaryKey: pk === undefined ? undefined : entry.column_names_original[pk]![1], columns: [] };
  });
  entry.column_names_original.forEach(([t, name], c) => {
    if (t < 0) return;
    const table = tables[t]!;
    const type = (entry.column_types[c] ?? 'text').toLowerCase();
    const distinct = db
      .prepare(`SELECT DISTINCT ${quoteIdent(name)} AS v FROM ${quoteIdent(table.name)} WHERE ${quoteIdent(name)} IS NOT NULL ORDER BY 1`)
      .all() as Array<{ v: unknown }>;
    const values = distinct.map((r) => r.v).filter(usableValue);
    let role: ColumnRole;
    if (keyColumns.has(c) || /(^id$|_id$)/i.test(name)) role = 'key';
    else if (type === 'date' || type === 'datetime' || type === 'time') role = 'date';
    else if (type === 'integer' || type === 'real' || type === 'number') role = distinct.length > 2 ? 'number' : 'category';
    else role = distinct.length <= CATEGORY_MAX_DISTINCT ? 'category' : 'label';
    table.columns.push({ table: table.name, name, readable: entry.column_names[c]?.[1] ?? name, role, values: spread(values, SAMPLE_SIZE) });
  });
  const foreignKeys: ForeignKeyFacts[] = [];
  for (const [a, b] of entry.foreign_keys) {
    const [ct, cc] = entry.column_names_original[a]!;
    const [pt, pc] = entry.column_names_original[b]!;
    if (ct === pt) continue;
    foreignKeys.push({ child: tables[ct]!.name, childColumn: cc, parent: tables[pt]!.name, parentColumn: pc });
  }
  return { dbId: entry.db_id, tables: tables.filter((t) => t.rows > 0), foreignKeys };
}
