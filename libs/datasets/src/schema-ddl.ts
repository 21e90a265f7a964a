import type { DatabaseSchema, TableSchema } from './types';

const quote = (name: string): string => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`);

function tableDdl(table: TableSchema): string {
  const lines = table.columns.map((c) => `  ${quote(c.name)} ${c.type}`);
  const pk = table.columns.filter((c) => c.primaryKey).map((c) => quote(c.name));
  if (pk.length > 0) lines.push(`  PRIMARY KEY (${pk.join(', ')})`);
  for (const c of table.columns) {
    if (c.references) lines.push(`  FOREIGN KEY (${quote(c.name)}) REFERENCES ${quote(c.references.table)}(${quote(c.references.column)})`);
  }
  return `CREATE TABLE ${quote(table.name)} (\n${lines.join(',\n')}\n);`;
}

/**
 * Rendered DDL by schema and by table object. Prompt renderers show the same schema for every question of a database
 * (planning a sweep renders it once per estimated stage); schemas are not changed once built, so an object renders
 * the same text each time. A schema filtered to some tables is a new object, and so are tables filtered to some columns.
 */
const renderedSchemas = new WeakMap<DatabaseSchema, string>();
const renderedTables = new WeakMap<TableSchema, string>();

function memoTableDdl(table: TableSchema): string {
  let ddl = renderedTables.get(table);
  if (ddl === undefined) {
    ddl = tableDdl(table);
    renderedTables.set(table, ddl);
  }
  return ddl;
}

/** The schema as CREATE TABLE statements with primary and foreign keys (the DAIL-SQL / R3 prompt style). */
export function renderSchemaDdl(db: DatabaseSchema): string {
  let ddl = renderedSchemas.get(db);
  if (ddl === undefined) {
    ddl = db.tables.map(memoTableDdl).join('\n\n');
    renderedSchemas.set(db, ddl);
  }
  return ddl;
}
