import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

export const repoRoot = join(__dirname, '..', '..');
const tsNode = ['-r', '@swc-node/register'];

export interface Proc { child: ChildProcess; stop(signal?: NodeJS.Signals): Promise<void> }

function handle(child: ChildProcess): Proc {
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

export async function startSimulator(opts: { config?: string; seed?: number } = {}): Promise<Proc & { url: string }> {
  const args = [...tsNode, 'apps/llm-sim/src/main.ts', '--port', '0', '--seed', String(opts.seed ?? 0), '--dataset', 'data/minibench/dist'];
  if (opts.config) args.push('--config', opts.config);
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`llm-sim exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line).url as string));
  });
  child.stdout!.resume();
  return { ...handle(child), url };
}

/** Worker processes exactly as production starts them; `onLogLine` receives their log lines instead of stdout. */
export function startWorkers(count: number, env: NodeJS.ProcessEnv, onLogLine?: (line: string) => void): Proc[] {
  return Array.from({ length: count }, () => {
    const child = spawn(process.execPath, [...tsNode, 'apps/worker/src/main.ts'], {
      cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', onLogLine ? 'pipe' : 'inherit', 'inherit'],
    });
    if (onLogLine) createInterface({ input: child.stdout! }).on('line', onLogLine);
    return handle(child);
  });
}

export interface CliResult { code: number; stdout: string; stderr: string }

/** Runs `sqlsweep <args>` as a user would, returning its exit code and output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 240_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'sqlsweep'), ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`sqlsweep ${args.join(' ')} timed out\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code: code ?? 1, stdout, stderr }); });
  });
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 250): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
