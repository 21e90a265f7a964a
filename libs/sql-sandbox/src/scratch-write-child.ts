// Entry point of a one-off child that runs one statement the sandbox refuses as a write (DELETE, UPDATE, CREATE
// ...) against a throw-away in-memory copy of the database, as the official scripts run it on a writable file.
import Database from 'better-sqlite3';
import { prepareWithDqsFallback } from './dqs-fallback';
import { resultOrRuntimeError, type ExecutionResult } from './execution-result';
import { encodeSqlValue, type SqlValue } from './sql-value';
import { gateSqlText } from './statement-gate';

interface ScratchRequest {
  dbPath: string;
  sql: string;
  maxRows: number;
  maxSqlLength: number;
}

function run(req: ScratchRequest): ExecutionResult {
  const start = process.hrtime.bigint();
  const elapsedMs = (): number => Number(process.hrtime.bigint() - start) / 1e6;
  // ATTACH, PRAGMA, load_extension ... stay refused: the copy must not reach any other file.
  const refused = gateSqlText(req.sql, { maxSqlLength: req.maxSqlLength });
  if (refused) return { status: 'error', errorKind: 'gate', message: refused, elapsedMs: elapsedMs() };
  const source = new Database(req.dbPath, { readonly: true, fileMustExist: true });
  const image = source.serialize();
  source.close();
  const db = new Database(image);
  try {
    db.pragma('trusted_schema = 0');
    let stmt: Database.Statement;
    try {
      stmt = prepareWithDqsFallback(db, req.sql);
    } catch (err) {
      return { status: 'error', errorKind: 'syntax', message: (err as Error).message, elapsedMs: elapsedMs() };
    }
    try {
      if (!stmt.reader) {
        stmt.run();
        return { status: 'ok', columns: [], rows: [], truncated: false, elapsedMs: elapsedMs() };
      }
      stmt.raw(true).safeIntegers(true);
      const rows: SqlValue[][] = [];
      for (const raw of stmt.iterate() as IterableIterator<unknown[]>) {
        if (rows.length >= req.maxRows) return { status: 'ok', columns: stmt.columns().map((c) => c.name), rows, truncated: true, elapsedMs: elapsedMs() };
        rows.push(raw.map(encodeSqlValue));
      }
      return { status: 'ok', columns: stmt.columns().map((c) => c.name), rows, truncated: false, elapsedMs: elapsedMs() };
    } catch (err) {
      return { status: 'error', errorKind: 'runtime', message: (err as Error).message, elapsedMs: elapsedMs() };
    }
  } finally {
    db.close(); // the child serves many writes: each copy is freed at once
  }
}

// One child serves every write of its parent, one at a time: forking (and compiling) a child per write cost
// seconds each. The parent SIGKILLs it at a deadline and forks a fresh one; it exits when the parent goes away.
process.on('message', (req: ScratchRequest) => {
  process.send?.(resultOrRuntimeError(() => run(req)));
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
