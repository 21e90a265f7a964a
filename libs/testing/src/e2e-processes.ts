/**
 * The system's processes started as a user or an operator starts them (the CLI, workers, the LLM simulator): the
 * end-to-end suites in test/ and the benches in bench/ both drive the stack through these.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

/** The repository's root: apps, `bin/sqlsweep` and data/minibench are started from here. */
export const repoRoot = join(__dirname, '..', '..', '..');
const tsNode = ['-r', '@swc-node/register'];

export interface Proc { child: ChildProcess; stop(signal?: NodeJS.Signals): Promise<void> }

/**
 * The processes started here that have not exited: killed as this process exits, however it exits (a benchmark ended
 * by SIGTERM, a suite that fails before its clean-up), so that none of them outlives the test or benchmark.
 */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
function track<C extends ChildProcess>(child: C): C {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

function handle(child: ChildProcess): Proc {
  track(child);
  return {
    child,
    stop: (signal = 'SIGTERM') => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', () => { clearTimeout(t); resolve(); });
      child.kill(signal);
    }),
  };
}

export type Simulator = Proc & { url: string };
/** `datasets`: the folders it learns the gold from, relative to the repository (default: the built minibench). */
export interface SimulatorOptions { config?: string; seed?: number; datasets?: string[] }

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const args = [...tsNode, 'apps/llm-sim/src/main.ts', '--port', '0', '--seed', String(opts.seed ?? 0), '--dataset', ...(opts.datasets ?? ['data/minibench/dist'])];
  if (opts.config) args.push('--config', opts.config);
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`llm-sim exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line).url as string));
  });
  child.stdout!.resume();
  return { ...handle(child), url };
}

/** SWC finds the repository's tsconfig (decorators, path aliases) whatever directory a process starts in. */
const swcProject = { SWC_NODE_PROJECT: join(repoRoot, 'tsconfig.json') };

/**
 * Worker processes exactly as production starts them; `onLogLine` receives their log lines instead of stdout;
 * `cwd` starts them in another directory than the repository's.
 */
export function startWorkers(count: number, env: NodeJS.ProcessEnv, onLogLine?: (line: string) => void, cwd = repoRoot): Proc[] {
  return Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['-r', require.resolve('@swc-node/register'), join(repoRoot, 'apps/worker/src/main.ts')], {
      cwd, env: { ...process.env, LOG_LEVEL: process.env.SQLSWEEP_E2E_LOG_LEVEL ?? 'warn', ...swcProject, ...env }, stdio: ['ignore', onLogLine ? 'pipe' : 'inherit', 'inherit'],
    });
    if (onLogLine) createInterface({ input: child.stdout! }).on('line', onLogLine);
    return handle(child);
  });
}

export interface CliResult { code: number; stdout: string; stderr: string }

/** A `sqlsweep` command still running: its output so far, whether it has exited, and its result once it has. */
export interface RunningCli {
  args: readonly string[];
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  readonly exited: boolean;
  finished: Promise<CliResult>;
}

/** Starts `sqlsweep <args>` as a user would (in `cwd`, the repository by default) and returns at once. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot): RunningCli {
  const child = track(spawn(process.execPath, [join(repoRoot, 'bin', 'sqlsweep'), ...args], { cwd, env: { ...process.env, ...swcProject, ...env } }));
  const out = { stdout: '', stderr: '', exited: false };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d));
  const finished = new Promise<CliResult>((resolve) => child.on('exit', (code) => {
    out.exited = true;
    resolve({ code: code ?? 1, stdout: out.stdout, stderr: out.stderr });
  }));
  return { args, child, finished, get stdout() { return out.stdout; }, get stderr() { return out.stderr; }, get exited() { return out.exited; } };
}

/** Runs `sqlsweep <args>` as a user would, returning its exit code and output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 240_000, cwd = repoRoot): Promise<CliResult> {
  return finishCli(spawnCli(args, env, cwd), timeoutMs);
}

/** Waits for a command `spawnCli` started to exit: its exit code and output. Past `timeoutMs`, kills it and throws. */
export async function finishCli(cli: RunningCli, timeoutMs = 240_000): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      cli.child.kill('SIGKILL');
      reject(new Error(`sqlsweep ${cli.args.join(' ')} timed out\n${cli.stdout}\n${cli.stderr}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([cli.finished, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
