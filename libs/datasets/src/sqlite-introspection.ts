import Database from 'better-sqlite3';
import type { TableSchema } from './types';

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export function openReadOnly(sqlitePath: string): Database.Database {
  return new Database(sqlitePath, { readonly: true, fileMustExist: true });
}

/**
 * Why SQLite cannot read this database, or undefined when it can: `PRAGMA quick_check` reads every page, so a file
 * that is not a database, or one whose pages are damaged, is found before anything is registered from it.
 */
export function unreadableDatabaseReason(db: Database.Database): string | undefined {
  try {
    const findings = db.pragma('quick_check') as Array<{ quick_check: string }>;
    if (findings.length === 1 && findings[0].quick_check === 'ok') return undefined;
    return findings.slice(0, 3).map((f) => f.quick_check).join('; ');
  } catch (err) {
    return (err as Error).message;
  }
}

/** A table as SQLite's pragmas declare it: columns in order, with the declared type and primary-key position. */
export interface SqliteTable {
  name: string;
  columns: Array<{ name: string; declaredType: string; /** 1-based position in the primary key, 0 when not in it */ pkOrder: number }>;
  /** In `PRAGMA foreign_key_list` order; `toColumn` null when the key names only the parent table (its primary key). */
  foreignKeys: Array<{ fromColumn: string; toTable: string; toColumn: string | null }>;
}

/** Every user table (creation order) with its columns and foreign keys, read from SQLite's own pragmas. */
export function readSqliteTables(db: Database.Database): SqliteTable[] {
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
    .pluck()
    .all() as string[];
  return names.map((name) => {
    const info = db.prepare(`PRAGMA table_info(${quoteIdent(name)})`).all() as Array<{ name: string; type: string; pk: number }>;
    const fks = db.prepare(`PRAGMA foreign_key_list(${quoteIdent(name)})`).all() as Array<{ table: string; from: string; to: string | null }>;
    return {
      name,
      columns: info.map((c) => ({ name: c.name, declaredType: c.type, pkOrder: c.pk })),
      foreignKeys: fks.map((f) => ({ fromColumn: f.from, toTable: f.table, toColumn: f.to })),
    };
  });
}

/** The schema as SQLite itself declares it: used when no tables.json describes a database. */
export function introspectTables(db: Database.Database): TableSchema[] {
  return readSqliteTables(db).map((table) => ({
    name: table.name,
    columns: table.columns.map((col) => {
      const fk = table.foreignKeys.find((f) => f.fromColumn === col.name);
      return {
        name: col.name,
        type: col.declaredType.toLowerCase() || 'text',
        primaryKey: col.pkOrder > 0,
        ...(fk ? { references: { table: fk.toTable, column: fk.toColumn ?? col.name } } : {}),
        sampleValues: [],
      };
    }),
  }));
}

const MAX_SAMPLE_TEXT = 100;

/** Fills `sampleValues` with up to `count` distinct non-null values per column (blobs skipped, long text cut). */
export function sampleColumnValues(db: Database.Database, tables: TableSchema[], count: number): string[] {
  const failures: string[] = [];
  for (const table of tables) {
    for (const column of table.columns) {
      try {
        const rows = db
          .prepare(
            `SELECT DISTINCT ${quoteIdent(column.name)} FROM ${quoteIdent(table.name)} ` +
              `WHERE ${quoteIdent(column.name)} IS NOT NULL AND typeof(${quoteIdent(column.name)}) != 'blob' LIMIT ${count}`,
          )
          .pluck()
          .all() as Array<string | number | bigint>;
        column.sampleValues = rows.map((v) =>
          typeof v === 'string' ? v.slice(0, MAX_SAMPLE_TEXT) : typeof v === 'bigint' ? v.toString() : v,
        );
      } catch (err) {
        failures.push(`${table.name}.${column.name}: ${(err as Error).message}`);
      }
    }
  }
  return failures;
}
