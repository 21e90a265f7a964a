import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** A SQLite database for a spec: `fileName` in a fresh temporary folder, built by `script`. */
export interface SpecDatabase {
  dir: string;
  dbPath: string;
  /** Deletes the folder and everything the spec wrote into it. */
  remove(): void;
}

export function createSpecDatabase(fileName: string, script: string): SpecDatabase {
  const dir = mkdtempSync(join(tmpdir(), `sqlsweep-${fileName.replace(/\.sqlite$/, '')}-`));
  const dbPath = join(dir, fileName);
  const db = new Database(dbPath);
  try {
    db.exec(script);
  } finally {
    db.close();
  }
  return { dir, dbPath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
