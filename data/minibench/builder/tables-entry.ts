import type Database from 'better-sqlite3';
import { readSqliteTables, type SqliteTable } from '@sqlsweep/datasets';
import type { DescriptionRow } from './descriptions';
import { MinibenchBuildError } from './errors';
import type { MinibenchTablesEntry } from './types';

/** The built database's tables as SQLite declares them; a table without columns is a schema.sql error. */
export function readSchema(db: Database.Database, schemaFile: string): SqliteTable[] {
  const tables = readSqliteTables(db);
  const empty = tables.find((t) => t.columns.length === 0);
  if (empty) throw new MinibenchBuildError(schemaFile, `table ${empty.name} has no columns`);
  return tables;
}

/** Maps a declared SQLite column type to the BIRD tables.json type, following SQLite's affinity rules. */
export function birdColumnType(declared: string): string {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (t.includes('DATE') || t.includes('TIME')) return 'date';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT') || t === '') return 'text';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB') || t.includes('NUM') || t.includes('DEC')) {
    return 'real';
  }
  return 'text';
}

export function humanise(name: string): string {
  return name.replace(/_/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}

export function toTablesEntry(
  dbId: string,
  schemaFile: string,
  schema: SqliteTable[],
  descriptions: Map<string, Map<string, DescriptionRow>>,
): MinibenchTablesEntry {
  const columnIndex = new Map<string, number>(); // "table\0column" (lower case) -> global index
  const entry: MinibenchTablesEntry = {
    db_id: dbId,
    table_names_original: schema.map((t) => t.name),
    table_names: schema.map((t) => humanise(t.name)),
    column_names_original: [[-1, '*']],
    column_names: [[-1, '*']],
    column_types: ['text'],
    primary_keys: [],
    foreign_keys: [],
  };
  schema.forEach((table, tIdx) => {
    const described = descriptions.get(table.name);
    for (const col of table.columns) {
      columnIndex.set(`${table.name.toLowerCase()}\0${col.name.toLowerCase()}`, entry.column_names_original.length);
      entry.column_names_original.push([tIdx, col.name]);
      const readable = described?.get(col.name)?.column_name || humanise(col.name);
      entry.column_names.push([tIdx, readable]);
      entry.column_types.push(birdColumnType(col.declaredType));
    }
  });
  for (const table of schema) {
    const pk = table.columns
      .filter((c) => c.pkOrder > 0)
      .sort((a, b) => a.pkOrder - b.pkOrder)
      .map((c) => columnIndex.get(`${table.name.toLowerCase()}\0${c.name.toLowerCase()}`) as number);
    if (pk.length === 1) entry.primary_keys.push(pk[0]);
    else if (pk.length > 1) entry.primary_keys.push(pk);
  }
  for (const table of schema) {
    for (const fk of table.foreignKeys) {
      const parent = schema.find((t) => t.name.toLowerCase() === fk.toTable.toLowerCase());
      if (!parent) {
        throw new MinibenchBuildError(schemaFile, `${table.name}.${fk.fromColumn} references unknown table ${fk.toTable}`);
      }
      const toColumn = fk.toColumn ?? parent.columns.find((c) => c.pkOrder === 1)?.name;
      const from = columnIndex.get(`${table.name.toLowerCase()}\0${fk.fromColumn.toLowerCase()}`);
      const to = toColumn === undefined ? undefined : columnIndex.get(`${parent.name.toLowerCase()}\0${toColumn.toLowerCase()}`);
      if (from === undefined || to === undefined) {
        throw new MinibenchBuildError(
          schemaFile,
          `${table.name}.${fk.fromColumn} references unknown column ${fk.toTable}.${fk.toColumn ?? '(primary key)'}`,
        );
      }
      entry.foreign_keys.push([from, to]);
    }
  }
  return entry;
}
