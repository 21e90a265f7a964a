import type { SqlValue } from './sql-value';

/** The outcome of one sandboxed query; plain JSON (stored as jsonb and compared later). */
export type ExecutionResult =
  | { status: 'ok'; columns: string[]; rows: SqlValue[][]; truncated: boolean; elapsedMs: number }
  | { status: 'error'; errorKind: 'gate' | 'syntax' | 'runtime'; message: string; elapsedMs: number }
  | { status: 'timeout'; elapsedMs: number };

export interface ExecuteRequest {
  dbPath: string;
  sql: string;
  deadlineMs?: number;
  /** Run the statement this many times and report every run's time (VES). Default 1. */
  repeat?: number;
}

export type TimedExecutionResult = ExecutionResult & { timingsMs?: number[] };

/** What a sandbox child answers for one request: `run`'s result, or a runtime error when it throws (never nothing). */
export function resultOrRuntimeError<T extends ExecutionResult>(run: () => T): T | ExecutionResult {
  try {
    return run();
  } catch (err) {
    return { status: 'error', errorKind: 'runtime', message: (err as Error).message, elapsedMs: 0 };
  }
}
