import type Database from 'better-sqlite3';
import { MinibenchBuildError } from './errors';
import type { MinibenchSourceQuestion } from './types';

/**
 * Every gold query must run, return rows, and return the same rows whatever order SQLite scans tables in:
 * `PRAGMA reverse_unordered_selects` flips scan order, which exposes ties cut by LIMIT, LIMIT without
 * ORDER BY, and bare columns picked from an arbitrary row of a group.
 */
export function checkGoldQueries(db: Database.Database, file: string, questions: MinibenchSourceQuestion[]): void {
  questions.forEach((q, index) => {
    let stmt: Database.Statement;
    let rows: unknown[][];
    try {
      stmt = db.prepare(q.SQL);
      if (!stmt.reader) throw new Error('not a query (returns no data)');
      rows = stmt.raw(true).all() as unknown[][];
    } catch (err) {
      throw new MinibenchBuildError(file, `gold SQL fails: ${(err as Error).message}`, index);
    }
    if (rows.length === 0) throw new MinibenchBuildError(file, 'gold SQL returns no rows', index);
    if (rows.length === 1 && rows[0].every((v) => v === null || v === 0)) {
      throw new MinibenchBuildError(file, 'gold SQL returns a single row of NULL/0 (an aggregate over no rows?)', index);
    }
    const tieBreaks = limitTieBreakVariants(q.SQL, stmt.columns().length);
    if (tieBreaks) {
      const [asc, desc] = tieBreaks.map((sql) => db.prepare(sql).raw(true).all() as unknown[][]);
      if (!sameMultiset(asc, desc)) {
        throw new MinibenchBuildError(
          file,
          'gold SQL is not deterministic: its LIMIT cuts rows that tie on the ORDER BY (or there is no ORDER BY)',
          index,
        );
      }
    }
    db.pragma('reverse_unordered_selects = ON');
    try {
      const reversed = db.prepare(q.SQL).raw(true).all() as unknown[][];
      if (!sameMultiset(rows, reversed)) {
        throw new MinibenchBuildError(
          file,
          'gold SQL result depends on row order (ties cut by LIMIT, LIMIT without ORDER BY, or a bare column in GROUP BY)',
          index,
        );
      }
    } finally {
      db.pragma('reverse_unordered_selects = OFF');
    }
  });
}

/**
 * For a query ending in a top-level LIMIT, returns two copies whose ORDER BY is extended with every output
 * column, ascending in one and descending in the other. Rows tied on the original ORDER BY then come in
 * opposite orders, so the two results differ exactly when the LIMIT cuts through a tie.
 */
export function limitTieBreakVariants(sql: string, columnCount: number): [string, string] | undefined {
  let depth = 0;
  let orderByAt = -1;
  let limitAt = -1;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      const close = sql.indexOf(c, i + 1);
      i = close === -1 ? sql.length : close;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /[A-Za-z]/.test(c) && (i === 0 || !/[A-Za-z0-9_]/.test(sql[i - 1]))) {
      const rest = sql.slice(i, i + 16);
      if (/^ORDER\s+BY\b/i.test(rest)) orderByAt = i;
      else if (/^LIMIT\b/i.test(rest)) limitAt = i;
    }
  }
  if (limitAt === -1) return undefined;
  const positions = Array.from({ length: columnCount }, (_, k) => k + 1);
  const head = sql.slice(0, limitAt).trimEnd();
  const tail = sql.slice(limitAt);
  const withOrder = (dir: string): string => {
    const terms = positions.map((p) => `${p} ${dir}`).join(', ');
    return orderByAt !== -1 && orderByAt < limitAt ? `${head}, ${terms} ${tail}` : `${head} ORDER BY ${terms} ${tail}`;
  };
  return [withOrder('ASC'), withOrder('DESC')];
}

export function sameMultiset(a: unknown[][], b: unknown[][]): boolean {
  if (a.length !== b.length) return false;
  const key = (r: unknown[]): string => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  const x = a.map(key).sort();
  const y = b.map(key).sort();
  return x.every((v, i) => v === y[i]);
}
