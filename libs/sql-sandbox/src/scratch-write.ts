import { fork, type ChildProcess } from 'node:child_process';
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

interface ScratchRequest { dbPath: string; sql: string; maxRows: number; maxSqlLength: number }

/**
 * The child that runs writes on throw-away copies, forked on first use and reused (forking and compiling one per
 * write cost seconds each on a busy machine); requests go one at a time. It does not keep the process alive while
 * idle, is SIGKILLed at a deadline (the next write forks a fresh one) and exits when its parent goes away.
 */
class ScratchChild {
  private child: ChildProcess | undefined;
  private ready: Promise<ChildProcess> | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  run(req: ScratchRequest, deadlineMs: number): Promise<ExecutionResult> {
    const next = this.tail.then(() => this.runNow(req, deadlineMs));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private start(): Promise<ChildProcess> {
    const { entry, execArgv } = childExecArgv(512);
    const child = fork(entry(join(__dirname, 'scratch-write-child')), [], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
    this.child = child;
    const state = { stderr: '' };
    child.stderr?.setEncoding('utf8').on('data', (c: string) => (state.stderr = (state.stderr + c).slice(-2000)));
    (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.(); // only the child and its channel hold the process
    child.on('error', () => undefined);
    child.once('exit', () => this.forget(child));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.forget(child);
        child.kill('SIGKILL');
        reject(new Error('scratch process did not start within 60 s'));
      }, 60_000);
      child.once('message', () => {
        clearTimeout(timer);
        resolve(child);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const said = state.stderr.trim().split('\n').pop() ?? '';
        reject(new Error(`scratch process died (${signal ?? `exit code ${code}`})${said ? `: ${said}` : ''}`));
      });
    });
  }

  /** The next write forks a fresh child (this one died or is being killed). */
  private forget(child: ChildProcess): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.ready = undefined;
  }

  private async runNow(req: ScratchRequest, deadlineMs: number): Promise<ExecutionResult> {
    let child: ChildProcess;
    try {
      this.ready ??= this.start();
      child = await this.ready;
    } catch (err) {
      this.ready = undefined;
      return { status: 'error', errorKind: 'runtime', message: (err as Error).message, elapsedMs: 0 };
    }
    child.ref();
    child.channel?.ref();
    // The deadline is the query's: it starts once the child is up, not while it loads (seconds on a busy machine).
    const start = process.hrtime.bigint();
    const elapsedMs = (): number => Number(process.hrtime.bigint() - start) / 1e6;
    return new Promise<ExecutionResult>((resolve) => {
      const done = (r: ExecutionResult): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.unref();
        child.channel?.unref();
        resolve(r);
      };
      const onMessage = (msg: ExecutionResult): void => done(msg);
      const onExit = (code: number | null, signal: string | null): void =>
        done({ status: 'error', errorKind: 'runtime', message: `scratch process died (${signal ?? `exit code ${code}`})`, elapsedMs: elapsedMs() });
      const timer = setTimeout(() => {
        this.forget(child);
        child.kill('SIGKILL');
        done({ status: 'timeout', elapsedMs: elapsedMs() });
      }, deadlineMs);
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send(req);
    });
  }
}

const scratchChild = new ScratchChild();

/**
 * Runs one write statement the way the official scripts do (on a writable database: Python's `fetchall()` after a
 * DELETE is `[]`), but on a throw-away in-memory copy in a child process that is SIGKILLed at the deadline. Returns
 * undefined when the database is too large to copy: the caller then reports the item as divergent.
 */
export function executeOnScratchCopy(dbPath: string, sql: string, opts: ScratchOptions): Promise<ExecutionResult | undefined> {
  if (statSync(dbPath).size > (opts.maxDbBytes ?? 512 * 1024 * 1024)) return Promise.resolve(undefined);
  return scratchChild.run({ dbPath, sql, maxRows: opts.maxRows ?? 100_000, maxSqlLength: 100_000 }, opts.deadlineMs);
}
