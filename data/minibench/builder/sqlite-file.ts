import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { readSqliteTables } from '@sqlsweep/datasets';
import { MinibenchBuildError } from './errors';
import { runScript } from './sql-script';

const SQLITE_PAGE_SIZE = 4096;

/** Creates the SQLite file from schema.sql and data.sql; same sources give a byte-identical file. */
export function createDatabase(dbSrc: string, sqlitePath: string): { tables: number; rows: number } {
  const schemaFile = path.join(dbSrc, 'schema.sql');
  const dataFile = path.join(dbSrc, 'data.sql');
  for (const f of [schemaFile, dataFile]) {
    if (!fs.existsSync(f)) throw new MinibenchBuildError(f, 'missing file');
  }
  const db = new Database(sqlitePath);
  try {
    db.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
    db.pragma('journal_mode = DELETE');
    // Checked once after loading (below), so data.sql may insert tables in any order.
    db.pragma('foreign_keys = OFF');
    db.transaction(() => {
      runScript(db, schemaFile);
      runScript(db, dataFile);
    })();

    const violations = db.pragma('foreign_key_check') as { table: string; rowid: number; parent: string }[];
    if (violations.length > 0) {
      const v = violations[0];
      throw new MinibenchBuildError(
        dataFile,
        `${violations.length} foreign key violation(s); first: ${v.table} rowid ${v.rowid} references missing ${v.parent} row`,
      );
    }
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new MinibenchBuildError(dataFile, `integrity_check: ${String(integrity)}`);

    const tableNames = readSqliteTables(db).map((t) => t.name);
    if (tableNames.length === 0) throw new MinibenchBuildError(schemaFile, 'no tables created');
    let rows = 0;
    for (const t of tableNames) {
      rows += (db.prepare(`SELECT COUNT(*) AS n FROM ${quoteIdent(t)}`).get() as { n: number }).n;
    }
    db.exec('VACUUM');
    return { tables: tableNames.length, rows };
  } finally {
    db.close();
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
