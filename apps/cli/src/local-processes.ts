import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const repoRoot = join(__dirname, '..', '..', '..');
const tsNode = ['-r', '@swc-node/register'];

export interface LocalProcess { child: ChildProcess; stop(): Promise<void> }

function stopper(child: ChildProcess, graceMs = 10_000): () => Promise<void> {
  return () => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill('SIGTERM');
  });
}

/** A child process with a graceful stop (SIGTERM, SIGKILL after `graceMs`). */
export function localProcess(child: ChildProcess, graceMs?: number): LocalProcess {
  return { child, stop: stopper(child, graceMs) };
}

export interface SpawnWorkersOptions {
  roles?: string;
  stdio?: 'inherit' | 'ignore';
  /**
   * The workers live only as long as this process: they exit when its IPC channel to them closes (it was killed, say),
   * and they sit in a process group of their own, so a Ctrl-C in the terminal reaches this process alone, which then
   * stops them once, gracefully, rather than twice.
   */
  tiedToParent?: boolean;
}

/** Starts worker processes on this machine (all roles unless told otherwise). */
export function spawnWorkers(count: number, env: NodeJS.ProcessEnv, opts: SpawnWorkersOptions = {}): LocalProcess[] {
  const preload = opts.tiedToParent ? ['-r', join(__dirname, 'exit-with-parent')] : [];
  return Array.from({ length: count }, () => {
    const child = spawn(process.execPath, [...tsNode, ...preload, join(repoRoot, 'apps/worker/src/main.ts')], {
      cwd: repoRoot,
      env: { ...env, ...(opts.roles ? { SQLSWEEP_ROLES: opts.roles } : {}), LOG_LEVEL: env.LOG_LEVEL ?? 'warn' },
      stdio: ['ignore', opts.stdio ?? 'ignore', 'inherit', ...(opts.tiedToParent ? ['ipc' as const] : [])],
      detached: opts.tiedToParent === true,
    });
    return { child, stop: stopper(child) };
  });
}

/** Starts the LLM simulator on a free loopback port and resolves with its URL once it listens. */
export async function spawnSimulator(datasetDirs: string[], seed = 0): Promise<LocalProcess & { url: string }> {
  const child = spawn(process.execPath, [...tsNode, join(repoRoot, 'apps/llm-sim/src/main.ts'), '--port', '0', '--seed', String(seed), '--dataset', ...datasetDirs], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`llm-sim exited with code ${code} before listening`)));
    lines.once('line', (line) => {
      try {
        resolve(JSON.parse(line).url as string);
      } catch {
        reject(new Error(`llm-sim printed an unexpected first line: ${line}`));
      }
    });
  });
  child.stdout!.resume();
  return { child, url, stop: stopper(child) };
}
