import type Database from 'better-sqlite3';
import { lexSql } from './sql-lexer';

const DQS_ERROR = /^no such column: ("(?:[^"]|"")*")/;
const MAX_REWRITES = 32;

/**
 * better-sqlite3 builds SQLite with SQLITE_DQS=0, but the official Spider and BIRD scripts run Python's sqlite3,
 * where a double-quoted token that names no column is read as a string literal (`WHERE x = "CD"`). Emulate that:
 * when SQLite reports the token as an unknown column, turn that token into a single-quoted literal and retry.
 */
export function prepareWithDqsFallback(db: Database.Database, sql: string): Database.Statement {
  let text = sql;
  for (let attempt = 0; ; attempt++) {
    try {
      return db.prepare(text);
    } catch (err) {
      const match = DQS_ERROR.exec((err as Error).message);
      if (!match || attempt >= MAX_REWRITES) throw err;
      const rewritten = rewriteQuoted(text, match[1]);
      if (rewritten === text) throw err;
      text = rewritten;
    }
  }
}

function rewriteQuoted(sql: string, quotedToken: string): string {
  const literal = `'${quotedToken.slice(1, -1).replace(/""/g, '"').replace(/'/g, "''")}'`;
  return lexSql(sql)
    .map((t) => (t.kind === 'quoted' && t.text === quotedToken ? literal : t.text))
    .join('');
}
