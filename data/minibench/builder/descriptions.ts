import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseCsvRows, type CsvRow, type SqliteTable } from '@sqlsweep/datasets';
import { MinibenchBuildError } from './errors';

const DESCRIPTION_HEADER = [
  'original_column_name',
  'column_name',
  'column_description',
  'data_format',
  'value_description',
] as const;
// The convention names integer/real/text/date; BIRD's own files also use datetime for timestamps.
const DATA_FORMATS = ['integer', 'real', 'text', 'date', 'datetime'] as const;

export interface DescriptionRow {
  original_column_name: string;
  column_name: string;
  column_description: string;
  data_format: string;
  value_description: string;
}

/** Validates every table's description CSV against the built schema and copies it to the output. */
export function readDescriptions(
  dbSrc: string,
  schema: SqliteTable[],
  outDescDir: string,
): Map<string, Map<string, DescriptionRow>> {
  const descDir = path.join(dbSrc, 'database_description');
  const result = new Map<string, Map<string, DescriptionRow>>();
  const present = fs.existsSync(descDir) ? fs.readdirSync(descDir).filter((f) => f.endsWith('.csv')) : [];
  for (const f of present) {
    const table = f.slice(0, -4);
    if (!schema.some((t) => t.name === table)) {
      throw new MinibenchBuildError(path.join(descDir, f), `describes table ${table}, which schema.sql does not create`);
    }
  }
  for (const table of schema) {
    const file = path.join(descDir, `${table.name}.csv`);
    if (!fs.existsSync(file)) throw new MinibenchBuildError(file, `table ${table.name} has no description CSV`);
    const text = fs.readFileSync(file, 'utf8');
    const rows: CsvRow[] = parseCsvRows(text);
    const unterminated = rows.find((r) => r.unterminated);
    if (unterminated) throw new MinibenchBuildError(file, `unterminated quoted field starting on line ${unterminated.line}`);
    const header = rows.shift();
    if (!header || header.fields.join(',') !== DESCRIPTION_HEADER.join(',')) {
      throw new MinibenchBuildError(file, `header must be "${DESCRIPTION_HEADER.join(',')}"`, undefined, 1);
    }
    const byColumn = new Map<string, DescriptionRow>();
    for (const { line, fields } of rows) {
      if (fields.length !== DESCRIPTION_HEADER.length) {
        throw new MinibenchBuildError(file, `expected ${DESCRIPTION_HEADER.length} fields, found ${fields.length}`, undefined, line);
      }
      const [original_column_name, column_name, column_description, data_format, value_description] = fields;
      if (!table.columns.some((c) => c.name === original_column_name)) {
        throw new MinibenchBuildError(file, `column ${original_column_name} is not a column of table ${table.name}`, undefined, line);
      }
      if (byColumn.has(original_column_name)) {
        throw new MinibenchBuildError(file, `column ${original_column_name} is described twice`, undefined, line);
      }
      if (!(DATA_FORMATS as readonly string[]).includes(data_format)) {
        throw new MinibenchBuildError(file, `data_format "${data_format}" must be one of ${DATA_FORMATS.join('/')}`, undefined, line);
      }
      if (column_description.trim() === '') {
        throw new MinibenchBuildError(file, `column ${original_column_name} has an empty column_description`, undefined, line);
      }
      byColumn.set(original_column_name, {
        original_column_name,
        column_name,
        column_description,
        data_format,
        value_description,
      });
    }
    const missing = table.columns.filter((c) => !byColumn.has(c.name)).map((c) => c.name);
    if (missing.length > 0) {
      throw new MinibenchBuildError(file, `columns of ${table.name} not described: ${missing.join(', ')}`);
    }
    fs.copyFileSync(file, path.join(outDescDir, `${table.name}.csv`));
    result.set(table.name, byColumn);
  }
  return result;
}
