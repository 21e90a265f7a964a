import type { DatabaseSchema } from '@sqlsweep/datasets';
import { classifySql, type SqlPiece } from './classify';

const MASK: Partial<Record<SqlPiece['kind'], string>> = {
  table: '[table_name]', alias: '[table_name]', column: '[column_name]', value: '[value]',
};

/**
 * The SQL skeleton of RB-SQL 4.3.1: table names (and the aliases standing for them) -> `[table_name]`, column names
 * -> `[column_name]`, literals -> `[value]`; keywords and function names upper-cased, whitespace collapsed, comments
 * dropped. The schema, when given, settles double-quoted tokens (identifier or string literal) and bare names in
 * ambiguous positions.
 */
export function sqlSkeleton(sql: string, schema?: DatabaseSchema): string {
  let out = '';
  for (const piece of classifySql(sql, schema)) {
    const text = MASK[piece.kind] ?? piece.text;
    if (out.length > 0 && piece.spaced) out += ' ';
    out += text;
  }
  return out.trim().replace(/;+$/, '').trim();
}
