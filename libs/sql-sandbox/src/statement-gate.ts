import { lexSql } from './sql-lexer';

export interface GateOptions {
  maxSqlLength: number;
}

/** Words that must not appear as a keyword or function name anywhere in sandboxed SQL. */
const DENIED_WORDS = new Set(['attach', 'detach', 'pragma', 'vacuum', 'load_extension', 'reindex', 'analyze']);

/**
 * Checks done before SQLite sees the text. The rest of the gate (exactly one statement, `stmt.reader &&
 * stmt.readonly`) is checked on the prepared statement in the child. A read-only connection alone does not stop
 * ATTACH, so the denylist is needed as well. Returns the reason for refusal, or undefined when the text may go on.
 */
export function gateSqlText(sql: string, opts: GateOptions): string | undefined {
  if (sql.length > opts.maxSqlLength) return `SQL is ${sql.length} characters, over the ${opts.maxSqlLength} limit`;
  if (sql.includes('\u0000')) return 'SQL contains a NUL character';
  for (const token of lexSql(sql)) {
    if (token.kind === 'word' && DENIED_WORDS.has(token.text.toLowerCase())) {
      return `${token.text.toUpperCase()} is not allowed`;
    }
    // A quoted identifier can name a function too: "load_extension"('x.so').
    if (token.kind === 'quoted' && token.text.slice(1, -1).toLowerCase() === 'load_extension') {
      return 'LOAD_EXTENSION is not allowed';
    }
  }
  return undefined;
}

export function gateStatement(stmt: { reader: boolean; readonly: boolean }): string | undefined {
  if (!stmt.reader) return 'only statements that return rows (SELECT / WITH ... SELECT) are allowed';
  if (!stmt.readonly) return 'the statement would write to the database';
  return undefined;
}
