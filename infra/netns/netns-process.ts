/**
 * A process started inside a host's namespace (`ip netns exec <ns> <argv>`: ip enters the namespace and execs the
 * command, so the child's pid is the command's own), its stdout lines to `onLine`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { findIpTools } from './ip-command';
import type { NetnsHost } from './host-network';

export interface NetnsProcess {
  host: NetnsHost;
  child: ChildProcess;
  /** SIGTERM (or `signal`), SIGKILL after `graceMs`; resolves once it has exited. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

export function spawnInHost(host: NetnsHost, argv: string[], opts: { env: NodeJS.ProcessEnv; cwd: string; onLine?: (line: string) => void; onErrLine?: (line: string) => void }): NetnsProcess {
  const ip = findIpTools().ip;
  if (!ip) throw new Error('no `ip` command: cannot start a process in a network namespace');
  const child = spawn(ip, ['netns', 'exec', host.namespace, ...argv], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  createInterface({ input: child.stdout! }).on('line', (l) => opts.onLine?.(l));
  createInterface({ input: child.stderr! }).on('line', (l) => (opts.onErrLine ?? opts.onLine)?.(l));
  return {
    host,
    child,
    stop: (signal = 'SIGTERM', graceMs = 15_000) => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => { clearTimeout(t); resolve(); });
      child.kill(signal);
    }),
  };
}
