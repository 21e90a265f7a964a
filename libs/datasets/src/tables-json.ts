import { DatasetError } from './errors';
import { isRecord } from './json-file';
import type { TableSchema } from './types';

/** One entry of Spider's `tables.json` / BIRD's `dev_tables.json`, validated. */
export interface TablesJsonEntry {
  dbId: string;
  tables: TableSchema[];
}

function stringArray(value: unknown, file: string, where: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new DatasetError(file, `${where} must be an array of strings`);
  }
  return value as string[];
}

export function parseTablesJson(raw: unknown, file: string): TablesJsonEntry[] {
  if (!Array.isArray(raw)) throw new DatasetError(file, 'expected a JSON array of database schemas');
  return raw.map((entry, index) => {
    if (!isRecord(entry) || typeof entry.db_id !== 'string') {
      throw new DatasetError(file, `entry ${index} has no string db_id`);
    }
    const where = `db_id ${entry.db_id}`;
    const tableNames = stringArray(entry.table_names_original, file, `${where}: table_names_original`);
    const columnTypes = stringArray(entry.column_types, file, `${where}: column_types`);
    const columns = entry.column_names_original;
    if (!Array.isArray(columns)) throw new DatasetError(file, `${where}: column_names_original must be an array`);
    const tables: TableSchema[] = tableNames.map((name) => ({ name, columns: [] }));
    const columnRefs: Array<{ table: number; column: number } | undefined> = [];
    columns.forEach((col, colIdx) => {
      if (!Array.isArray(col) || typeof col[0] !== 'number' || typeof col[1] !== 'string') {
        throw new DatasetError(file, `${where}: column_names_original[${colIdx}] must be [tableIndex, name]`);
      }
      const [tableIdx, name] = col as [number, string];
      if (tableIdx < 0) {
        columnRefs.push(undefined); // the "*" pseudo-column
        return;
      }
      const table = tables[tableIdx];
      if (!table) throw new DatasetError(file, `${where}: column ${name} points at missing table ${tableIdx}`);
      columnRefs.push({ table: tableIdx, column: table.columns.length });
      table.columns.push({ name, type: columnTypes[colIdx] ?? 'text', primaryKey: false, sampleValues: [] });
    });
    const columnAt = (colIdx: unknown) => {
      const ref = typeof colIdx === 'number' ? columnRefs[colIdx] : undefined;
      if (!ref) throw new DatasetError(file, `${where}: key refers to unknown column index ${String(colIdx)}`);
      return { table: tables[ref.table], column: tables[ref.table].columns[ref.column] };
    };
    const primaryKeys = Array.isArray(entry.primary_keys) ? entry.primary_keys : [];
    for (const pk of primaryKeys.flat()) columnAt(pk).column.primaryKey = true; // BIRD nests composite keys
    const foreignKeys = Array.isArray(entry.foreign_keys) ? entry.foreign_keys : [];
    for (const fk of foreignKeys) {
      if (!Array.isArray(fk) || fk.length !== 2) throw new DatasetError(file, `${where}: foreign key must be [from, to]`);
      const from = columnAt(fk[0]);
      const to = columnAt(fk[1]);
      from.column.references ??= { table: to.table.name, column: to.column.name };
    }
    return { dbId: entry.db_id, tables };
  });
}
