import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeRedis, waitFor } from './probe';
import { clearServerState, findFreePort, liveServerState, terminateProcess, writeServerState } from './server-state';

export interface PrivateRedis {
  url: string;
  port: number;
  pid: number;
  reused: boolean;
}

export function redisUrlFor(port: number): string {
  return `redis://127.0.0.1:${port}`;
}

/** The private server recorded in `dir`, if it is alive and answering. */
export async function reusablePrivateRedis(dir: string): Promise<PrivateRedis | undefined> {
  const state = liveServerState(dir);
  if (!state) return undefined;
  const probe = await probeRedis(redisUrlFor(state.port));
  return probe.ok ? { url: redisUrlFor(state.port), port: state.port, pid: state.pid, reused: true } : undefined;
}

export interface StartPrivateRedisOptions {
  dir: string;
  binary: string;
  confPath: string;
  preferredPort: number;
}

/** Starts a daemonised redis-server with infra/redis.conf, its data and AOF in `dir`. */
export async function startPrivateRedis(opts: StartPrivateRedisOptions): Promise<PrivateRedis> {
  mkdirSync(opts.dir, { recursive: true });
  const port = await findFreePort(opts.preferredPort);
  const pidFile = join(opts.dir, 'redis.pid');
  const logFile = join(opts.dir, 'redis.log');
  const result = spawnSync(
    opts.binary,
    [
      opts.confPath,
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--dir', opts.dir,
      '--daemonize', 'yes',
      '--pidfile', pidFile,
      '--logfile', logFile,
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (result.status !== 0) {
    throw new Error(
      `${opts.binary} ${opts.confPath} --port ${port} failed (exit ${result.status}): ` +
        `${(result.stderr || result.stdout || '').trim()} — see ${logFile}`,
    );
  }
  const url = redisUrlFor(port);
  await waitFor(`private redis-server on port ${port} (log: ${logFile})`, () => probeRedis(url), 15_000);
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
  writeServerState(opts.dir, { port, pid });
  return { url, port, pid, reused: false };
}

/** Stops the private server recorded in `dir` (tests and `ensure-services --stop` use it). */
export async function stopPrivateRedis(dir: string): Promise<boolean> {
  const state = liveServerState(dir);
  clearServerState(dir);
  if (!state) return false;
  await terminateProcess(state.pid);
  return true;
}
