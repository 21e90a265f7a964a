import { fork } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionResult } from './execution-result';

/** Gate messages (statement-gate.ts) of statements that compile but write or return no rows. */
const WRITE_REFUSALS = ['the statement would write to the database', 'only statements that return rows'];

/** Whether a sandbox result is the gate refusing a statement because it writes (not because of its text). */
export function refusedAsWrite(result: ExecutionResult): boolean {
  return result.status === 'error' && result.errorKind === 'gate' && WRITE_REFUSALS.some((m) => result.message.startsWith(m));
}

export interface ScratchOptions {
  deadlineMs: number;
  /** Databases larger than this are not copied into memory (default 512 MiB). */
  maxDbBytes?: number;
  maxRows?: number;
}

/** Fork arguments that load the TypeScript entry from any working directory (the hook is resolved from here). */
export function childExecArgv(heapMb: number): { entry: (base: string) => string; execArgv: string[] } {
  const isTs = __filename.endsWith('.ts');
  return {
    entry: (base) => `${base}${isTs ? '.ts' : '.js'}`,
    execArgv: [...(isTs ? ['-r', require.resolve('@swc-node/register')] : []), `--max-old-space-size=${heapMb}`],
  };
}

/**
 * Runs one write statement the way the official scripts do (on a writable database: Python's `fetchall()` after a
 * DELETE is `[]`), but on a throw-away in-memory copy in a child process that is SIGKILLed at the deadline. Returns
 * undefined when the database is too large to copy: the caller then reports the item as divergent.
 */
export function executeOnScratchCopy(dbPath: string, sql: string, opts: ScratchOptions): Promise<ExecutionResult | undefined> {
  if (statSync(dbPath).size > (opts.maxDbBytes ?? 512 * 1024 * 1024)) return Promise.resolve(undefined);
  const { entry, execArgv } = childExecArgv(512);
  let start = process.hrtime.bigint();
  const elapsedMs = (): number => Number(process.hrtime.bigint() - start) / 1e6;
  return new Promise((resolve) => {
    const child = fork(entry(join(__dirname, 'scratch-write-child')), [], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
    let stderr = '';
    let settled = false;
    const settle = (r: ExecutionResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    // The deadline is the query's: it starts when the child is up, not while it loads (seconds on a busy machine).
    let timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle({ status: 'error', errorKind: 'runtime', message: 'scratch process did not start within 60 s', elapsedMs: elapsedMs() });
    }, 60_000);
    child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-2000)));
    child.on('message', (msg: ExecutionResult | { type: 'ready' }) => {
      if (!('type' in msg)) return settle(msg);
      clearTimeout(timer);
      start = process.hrtime.bigint();
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        settle({ status: 'timeout', elapsedMs: elapsedMs() });
      }, opts.deadlineMs);
      child.send({ dbPath, sql, maxRows: opts.maxRows ?? 100_000, maxSqlLength: 100_000 });
    });
    child.on('error', () => undefined);
    child.on('exit', (code, signal) => {
      const said = stderr.trim().split('\n').pop() ?? '';
      settle({ status: 'error', errorKind: 'runtime', message: `scratch process died (${signal ?? `exit code ${code}`})${said ? `: ${said}` : ''}`, elapsedMs: elapsedMs() });
    });
  });
}
