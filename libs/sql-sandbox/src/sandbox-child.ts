// Entry point of one sandbox child process: holds read-only connections, runs one query at a time.
import Database from 'better-sqlite3';
import type { ChildLimits, ChildMessage, ChildRequest } from './child-protocol';
import { prepareWithDqsFallback } from './dqs-fallback';
import { resultOrRuntimeError, type TimedExecutionResult } from './execution-result';
import { dieWithParent } from './parent-watch';
import { encodeSqlValue, type SqlValue } from './sql-value';
import { gateSqlText, gateStatement } from './statement-gate';

// The parent passes the limits as the first argument (a JSON object) and its pid as the second.
const limits = JSON.parse(process.argv[2] ?? '{}') as ChildLimits;
dieWithParent(Number(process.argv[3] ?? process.ppid));
const connections = new Map<string, Database.Database>();

function connect(dbPath: string): Database.Database {
  let db = connections.get(dbPath);
  if (!db) {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    db.pragma('query_only = 1');
    db.pragma('trusted_schema = 0');
    connections.set(dbPath, db);
  }
  return db;
}

const elapsedSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

function approxBytes(v: SqlValue): number {
  if (v === null) return 4;
  if (typeof v === 'string') return v.length + 2;
  if (typeof v === 'number') return 12;
  return 24 + ('blob' in v ? v.blob.length : 0);
}

function run(req: ChildRequest): TimedExecutionResult {
  const start = process.hrtime.bigint();
  const refused = gateSqlText(req.sql, limits);
  if (refused) return { status: 'error', errorKind: 'gate', message: refused, elapsedMs: elapsedSince(start) };
  let db: Database.Database;
  try {
    db = connect(req.dbPath);
  } catch (err) {
    const message = `cannot open database ${req.dbPath}: ${(err as Error).message}`;
    return { status: 'error', errorKind: 'runtime', message, elapsedMs: elapsedSince(start) };
  }
  let stmt: Database.Statement;
  try {
    stmt = prepareWithDqsFallback(db, req.sql);
  } catch (err) {
    const message = (err as Error).message;
    const kind = /more than one statement/.test(message) ? 'gate' : 'syntax';
    return { status: 'error', errorKind: kind, message, elapsedMs: elapsedSince(start) };
  }
  const notAllowed = gateStatement(stmt);
  if (notAllowed) return { status: 'error', errorKind: 'gate', message: notAllowed, elapsedMs: elapsedSince(start) };
  stmt.raw(true).safeIntegers(true);
  const columns = stmt.columns().map((c) => c.name);
  const timingsMs: number[] = [];
  let rows: SqlValue[][] = [];
  let truncated = false;
  try {
    for (let r = 0; r < req.repeat; r++) {
      const runStart = process.hrtime.bigint();
      const collected: SqlValue[][] = [];
      let bytes = 0;
      let cut = false;
      for (const raw of stmt.iterate() as IterableIterator<unknown[]>) {
        const row = raw.map(encodeSqlValue);
        bytes += row.reduce((n: number, v) => n + approxBytes(v), 2);
        if (collected.length >= limits.maxRows || bytes > limits.maxResultBytes) {
          cut = true;
          break;
        }
        collected.push(row);
      }
      timingsMs.push(elapsedSince(runStart));
      if (r === 0) {
        rows = collected;
        truncated = cut;
      }
    }
  } catch (err) {
    return { status: 'error', errorKind: 'runtime', message: (err as Error).message, elapsedMs: elapsedSince(start) };
  }
  const result: TimedExecutionResult = { status: 'ok', columns, rows, truncated, elapsedMs: timingsMs[0] ?? 0 };
  if (req.repeat > 1) result.timingsMs = timingsMs;
  return result;
}

const send = (msg: ChildMessage): void => {
  process.send?.(msg);
};

process.on('message', (req: ChildRequest) => {
  send({ type: 'result', id: req.id, result: resultOrRuntimeError(() => run(req)) });
});
process.on('disconnect', () => process.exit(0)); // an idle child hears at once; a busy one through dieWithParent
send({ type: 'ready' });
