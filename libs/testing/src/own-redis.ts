import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** Whether a `redis-server` binary is on the PATH (tests that start their own Redis skip without one). */
export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

/** A port free on 127.0.0.1 now. */
export function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

export interface OwnRedis { port: number; url: string; child: ChildProcess; stop(): Promise<void> }

/**
 * A throw-away redis-server of a test's own, without persistence, in `dir` (`extra`: more server arguments, e.g.
 * cluster mode), answering PING when this resolves: for tests that flush scripts or data, which must never touch the
 * machine's shared Redis. `stop()` ends it (SIGTERM, by its own child handle) and waits for it to exit.
 */
export async function startOwnRedis(dir: string, extra: string[] = []): Promise<OwnRedis> {
  const port = await freeLocalPort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...extra], { stdio: 'ignore' });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  for (let i = 0; ; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return { port, url: `redis://127.0.0.1:${port}`, child, stop };
    } catch (e) {
      probe.disconnect();
      if (i > 100) {
        await stop();
        throw e;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
