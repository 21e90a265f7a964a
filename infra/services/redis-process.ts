import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Redis from 'ioredis';
import { findExecutable, pathDirectories } from './binaries';
import { isProcessAlive } from './file-lock';
import { probeRedis, waitFor, type ProbeResult } from './probe';
import { isPortFree, terminateProcess } from './server-state';

/** One daemonised redis-server (data server or Sentinel) that a private group started: its port and pid. */
export interface RedisProcess {
  name: string;
  port: number;
  pid: number;
  log: string;
}

/** redis-server and redis-cli from PATH, or one line saying which is missing (tests skip with it). */
export function findRedisBinaries(env: Record<string, string | undefined> = process.env): { server: string; cli: string } | string {
  const dirs = pathDirectories(env);
  const server = findExecutable('redis-server', dirs);
  if (!server) return 'no redis-server on PATH (Debian: apt-get install redis-server)';
  const cli = findExecutable('redis-cli', [dirname(server), ...dirs]);
  if (!cli) return `no redis-cli beside ${server} or on PATH (Debian: apt-get install redis-tools)`;
  return { server, cli };
}

/** `count` free ports from `from` on, none of them in `taken`; `alsoFree(port)` must be free too (a cluster bus port). */
export async function freePorts(count: number, from: number, alsoFree: (port: number) => number[] = () => []): Promise<number[]> {
  const ports: number[] = [];
  for (let port = from; ports.length < count; port++) {
    if (port > from + 2_000) throw new Error(`no ${count} free TCP ports on 127.0.0.1 in ${from}..${from + 2_000}`);
    const needed = [port, ...alsoFree(port)];
    const results = await Promise.all(needed.map((p) => isPortFree(p)));
    if (results.every(Boolean)) ports.push(port);
  }
  return ports;
}

/**
 * Starts `redis-server <args> --daemonize yes` with its pid and log files named after `name` in `dir`, and waits until
 * it answers. `confFile` goes first (a Sentinel needs one it can rewrite).
 */
export async function startRedisProcess(opts: { binary: string; dir: string; name: string; port: number; confFile?: string; args: string[]; sentinel?: boolean }): Promise<RedisProcess> {
  const pidFile = join(opts.dir, `${opts.name}.pid`);
  const log = join(opts.dir, `${opts.name}.log`);
  const args = [
    ...(opts.confFile ? [opts.confFile] : []),
    ...(opts.sentinel ? ['--sentinel'] : []),
    '--port', String(opts.port), '--bind', '127.0.0.1', '--dir', opts.dir,
    '--daemonize', 'yes', '--pidfile', pidFile, '--logfile', log,
    ...opts.args,
  ];
  const result = spawnSync(opts.binary, args, { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) {
    throw new Error(`${opts.binary} ${args.join(' ')} failed (exit ${result.status}): ${(result.stderr || result.stdout || '').trim()} — see ${log}`);
  }
  const url = `redis://127.0.0.1:${opts.port}`;
  await waitFor<unknown>(`${opts.name}: redis-server on port ${opts.port} (log: ${log})`, () => (opts.sentinel ? pingSentinel(url) : probeRedis(url)), 15_000);
  const pid = await waitFor(`${opts.name}: pid file ${pidFile}`, async () => readPid(pidFile), 5_000);
  return { name: opts.name, port: opts.port, pid, log };
}

function readPid(pidFile: string): ProbeResult<number> {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
    return Number.isInteger(pid) ? { ok: true, value: pid } : { ok: false, reason: 'empty pid file' };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

/** A Sentinel answers PING but not INFO server's redis_version the same way; PING is enough. */
async function pingSentinel(url: string): Promise<ProbeResult<true>> {
  return withClient(url, async (c) => ((await c.ping()) === 'PONG' ? { ok: true, value: true } : { ok: false, reason: 'no PONG' }));
}

/** Runs `work` on a short-lived client that does not retry; a failure becomes a not-ok result. */
export async function withClient<T>(url: string, work: (client: Redis) => Promise<ProbeResult<T>>): Promise<ProbeResult<T>> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(client);
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  } finally {
    client.disconnect();
  }
}

/** Stops these processes (SIGTERM, then SIGKILL after `graceMs`), all at once; those already gone are skipped. */
export async function stopRedisProcesses(processes: RedisProcess[], graceMs = 5_000): Promise<void> {
  await Promise.all(processes.filter((p) => isProcessAlive(p.pid)).map((p) => terminateProcess(p.pid, graceMs)));
}
