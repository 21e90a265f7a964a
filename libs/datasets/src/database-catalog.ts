import { existsSync, readdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { prepareWithDqsFallback } from '@sqlsweep/sql-sandbox';
import { readColumnDescriptions } from './description-csv';
import type { TablesJsonEntry } from './tables-json';
import { DatasetError } from './errors';
import { introspectTables, openReadOnly, sampleColumnValues, unreadableDatabaseReason } from './sqlite-introspection';
import type { DatabaseSchema, DatasetItem, DatasetProblem, TableSchema } from './types';

export interface CatalogOptions {
  root: string;
  /** Folders holding `<db_id>/<db_id>.sqlite`, relative to root. */
  databaseDirs: string[];
  schemas: Map<string, TablesJsonEntry>;
  /** Databases already found elsewhere (a Spider-DK database over Spider's): not read again. */
  skip?: ReadonlySet<string>;
  sampleValues: number;
  problems: DatasetProblem[];
}

/** Finds every `<dir>/<db>/<db>.sqlite`, attaches its schema (tables.json, else SQLite's own), descriptions, samples. */
export async function buildDatabaseCatalog(opts: CatalogOptions): Promise<DatabaseSchema[]> {
  const databases: DatabaseSchema[] = [];
  for (const dir of opts.databaseDirs) {
    const absDir = join(opts.root, dir);
    if (!existsSync(absDir)) continue;
    const dbIds = readdirSync(absDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .filter((dbId) => !opts.skip?.has(dbId))
      .sort();
    for (const dbId of dbIds) {
      const sqlitePath = join(absDir, dbId, `${dbId}.sqlite`);
      if (!existsSync(sqlitePath)) {
        opts.problems.push({ file: relative(opts.root, join(absDir, dbId)), message: `no ${dbId}.sqlite in folder` });
        continue;
      }
      databases.push(await describeDatabase(opts, dbId, sqlitePath));
    }
  }
  return databases;
}

async function describeDatabase(opts: CatalogOptions, dbId: string, sqlitePath: string): Promise<DatabaseSchema> {
  const relPath = relative(opts.root, sqlitePath);
  const db = openReadOnly(sqlitePath);
  try {
    const unreadable = unreadableDatabaseReason(db);
    if (unreadable) throw new DatasetError(sqlitePath, `SQLite cannot read database ${dbId} (${unreadable}); replace the file with an intact copy`);
    const declared = opts.schemas.get(dbId);
    const tables: TableSchema[] = declared ? structuredClone(declared.tables) : introspectTables(db);
    if (!declared) opts.problems.push({ file: relPath, message: 'no tables.json entry; schema read from SQLite' });
    for (const failure of sampleColumnValues(db, tables, opts.sampleValues)) {
      opts.problems.push({ file: relPath, message: `cannot sample ${failure}` });
    }
    await attachDescriptions(opts, sqlitePath, tables);
    return { dbId, sqlitePath, tables };
  } finally {
    db.close();
  }
}

async function attachDescriptions(opts: CatalogOptions, sqlitePath: string, tables: TableSchema[]): Promise<void> {
  const descDir = join(sqlitePath, '..', 'database_description');
  if (!existsSync(descDir)) return;
  for (const fileName of (await readdir(descDir)).filter((f) => f.toLowerCase().endsWith('.csv')).sort()) {
    const file = join(descDir, fileName);
    const tableName = fileName.slice(0, -4).trim().toLowerCase();
    const table = tables.find((t) => t.name.toLowerCase() === tableName);
    if (!table) {
      opts.problems.push({ file: relative(opts.root, file), message: `no table named ${tableName} in the schema` });
      continue;
    }
    try {
      for (const desc of await readColumnDescriptions(file)) {
        const column = table.columns.find((c) => c.name.trim().toLowerCase() === desc.originalColumnName.toLowerCase());
        if (!column) {
          opts.problems.push({
            file: relative(opts.root, file),
            message: `describes column ${desc.originalColumnName}, which table ${table.name} does not have`,
          });
          continue;
        }
        const description = desc.description ?? desc.columnName;
        if (description !== undefined) column.description = description;
        if (desc.valueDescription !== undefined) column.valueDescription = desc.valueDescription;
      }
    } catch (err) {
      opts.problems.push({ file: relative(opts.root, file), message: (err as Error).message });
    }
  }
}

/** Flags items whose database is missing and items whose gold SQL does not compile on their database. */
export function checkItemsAgainstDatabases(
  items: DatasetItem[],
  databases: DatabaseSchema[],
  itemFile: (item: DatasetItem) => string,
  problems: DatasetProblem[],
): void {
  const byId = new Map(databases.map((d) => [d.dbId, d]));
  const missing = new Map<string, number>();
  const grouped = new Map<string, DatasetItem[]>();
  for (const item of items) {
    if (!byId.has(item.dbId)) {
      missing.set(item.dbId, (missing.get(item.dbId) ?? 0) + 1);
      problems.push({ file: itemFile(item), item: item.id, message: `db_id ${item.dbId} has no database` });
      continue;
    }
    const list = grouped.get(item.dbId) ?? [];
    list.push(item);
    grouped.set(item.dbId, list);
  }
  for (const [dbId, list] of grouped) {
    const db = openReadOnly(byId.get(dbId)!.sqlitePath);
    try {
      for (const item of list) {
        try {
          prepareWithDqsFallback(db, item.goldSql);
        } catch (err) {
          problems.push({ file: itemFile(item), item: item.id, message: `gold SQL does not compile: ${(err as Error).message}` });
        }
      }
    } finally {
      db.close();
    }
  }
}
