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

/** The schema as CREATE TABLE statements with primary and foreign keys (the DAIL-SQL / R3 prompt style). */
export function renderSchemaDdl(db: DatabaseSchema): string {
  return db.tables.map(tableDdl).join('\n\n');
}
