import { readdirSync, readFileSync } from 'node:fs';
import { createTestDatabase, spawnCli, type TestDatabase, testQueuePrefix, testRedisUrl, waitFor } from '@sqlsweep/testing';

jest.setTimeout(120_000);

/** Alive and not a zombie. */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The worker process (apps/worker) whose parent is `parent`, found in /proc. */
function workerChildOf(parent: number): number | undefined {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).find((pid) => {
    try {
      const ppid = Number(/^\d+ \(.*\) \S (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1]);
      return ppid === parent && isRunning(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('apps/worker/src/main.ts');
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** `sqlsweep workers` keeps its processes alive: a worker killed from outside is replaced, and the command says so. */
describe('sqlsweep workers', () => {
  let db: TestDatabase;
  const seen: number[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const pid of seen.filter(isRunning)) process.kill(pid, 'SIGKILL');
    await db?.drop();
  });

  it('restarts a worker that died (kill -9), says so, and restarts none once stopped', async () => {
    const cli = spawnCli(['workers', '--count', '1', '--roles', 'sql'], {
      DATABASE_URL: db.url, REDIS_URL: testRedisUrl(), SQLSWEEP_QUEUE_PREFIX: testQueuePrefix(),
    });
    try {
      const first = await waitFor('the worker process', async () => {
        if (cli.exited) throw new Error(`sqlsweep workers exited:\n${cli.stdout}\n${cli.stderr}`);
        return workerChildOf(cli.child.pid!);
      }, 30_000, 50);
      // The child can exist a moment before the CLI's line naming it is printed (seen once under load).
      await waitFor('the line naming the worker', async () => (cli.stdout.includes(`(pids ${first})`) ? true : undefined), 10_000, 50).catch(() => undefined);
      expect(cli.stdout).toContain(`(pids ${first})`);
      seen.push(first);
      process.kill(first, 'SIGKILL');
      const second = await waitFor('the restart', async () => {
        const m = /worker 1 restarted \(pid (\d+), restart 1\)/.exec(cli.stdout);
        return m ? Number(m[1]) : undefined;
      }, 30_000, 50);
      seen.push(second);
      expect(cli.stdout).toContain(`worker 1 (pid ${first}) was killed by SIGKILL`);
      expect(second).not.toBe(first);
      expect(isRunning(second)).toBe(true);

      cli.child.kill('SIGTERM');
      const result = await cli.finished;
      expect(result.code).toBe(0);
      await waitFor('the worker to exit', async () => (isRunning(second) ? undefined : true), 15_000);
      expect(result.stdout.match(/restarted/g)).toHaveLength(1);
    } finally {
      if (!cli.exited) cli.child.kill('SIGKILL');
    }
  });
});
