import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { SandboxPool } from './sandbox-pool';
import { createSpecDatabase, type SpecDatabase } from './spec-database';

/** A query that never ends on its own: it runs until its deadline. `n` makes each one a different statement. */
const runaway = (n: number) => `WITH RECURSIVE c(x) AS (SELECT ${n} UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`;

/** Live (not zombie) children of this process, by pid, with their nice values (field 19 of /proc/<pid>/stat). */
function liveChildren(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') out.set(Number(entry), Number(fields[16]));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/**
 * Nice values of the children this process started after `before` was taken. A jest worker runs other suites first,
 * and a process one of them left behind is its child too; it is not the pool's.
 */
function childNiceValues(before: ReadonlySet<number>): number[] {
  return [...liveChildren()].filter(([pid]) => !before.has(pid)).map(([, nice]) => nice);
}

/** The pids of this process's children now, to leave out of later readings. */
const childrenNow = (): Set<number> => new Set(liveChildren().keys());

describe('SandboxPool with slow queries', () => {
  let database: SpecDatabase;
  let dbPath: string;
  beforeAll(() => {
    database = createSpecDatabase('slow.sqlite', 'CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3);');
    ({ dbPath } = database);
  });
  afterAll(() => database.remove());

  it('answers a quick query within a second while slow queries hold every regular child', async () => {
    const pool = new SandboxPool({ size: 2, deadlineMs: 5_000 });
    try {
      await pool.ready();
      const slow = [1, 2].map((n) => pool.execute({ dbPath, sql: runaway(n), deadlineMs: 4_000 }));
      await new Promise((r) => setTimeout(r, 50));
      const start = performance.now();
      const quick = await pool.execute({ dbPath, sql: 'SELECT count(*) FROM t' });
      const waitedMs = performance.now() - start;
      expect(quick).toMatchObject({ status: 'ok', rows: [[3]] });
      expect(waitedMs).toBeLessThan(1_000);
      expect(pool.extraChildren).toBeGreaterThanOrEqual(1);
      // The slow ones are untouched: they still run to their deadline and are killed.
      expect((await Promise.all(slow)).map((r) => r.status)).toEqual(['timeout', 'timeout']);
    } finally {
      await pool.close();
    }
  }, 30_000);

  it('starts at most maxExtra extra children, and stops them once idle', async () => {
    const pool = new SandboxPool({ size: 1, maxExtra: 2, slowAfterMs: 100, extraIdleMs: 300, deadlineMs: 5_000 });
    try {
      await pool.ready();
      const slow = [1, 2, 3, 4, 5].map((n) => pool.execute({ dbPath, sql: runaway(n), deadlineMs: 2_500 }));
      const quick = Array.from({ length: 20 }, (_, i) => pool.execute({ dbPath, sql: `SELECT ${i}` }));
      await Promise.all([...slow, ...quick]);
      expect(pool.extrasStarted).toBeGreaterThanOrEqual(1);
      expect(pool.peakExtras).toBeLessThanOrEqual(2);
      const deadline = Date.now() + 10_000;
      while (pool.extraChildren > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(pool.extraChildren).toBe(0);
      expect(pool.extrasRetired).toBeGreaterThanOrEqual(1);
      // Still serves afterwards, on its regular child.
      expect(await pool.execute({ dbPath, sql: 'SELECT 42' })).toMatchObject({ status: 'ok', rows: [[42]] });
    } finally {
      await pool.close();
    }
  }, 60_000);

  (process.platform === 'linux' ? it : it.skip)('runs a slow query at a lower scheduling priority until it ends, and a timing run at its own', async () => {
    const before = childrenNow();
    const pool = new SandboxPool({ size: 1, standby: false, slowAfterMs: 100, maxExtra: 0 });
    try {
      await pool.ready();
      const base = getPriority();
      const slow = pool.execute({ dbPath, sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000000) SELECT count(*) FROM c' });
      await new Promise((r) => setTimeout(r, 400));
      expect(childNiceValues(before)).toEqual([Math.min(19, base + 10)]);
      expect(await slow).toMatchObject({ status: 'ok', rows: [[5_000_000]] });
      expect(childNiceValues(before)).toEqual([base]);
      const timing = pool.execute({ dbPath, sql: runaway(2), deadlineMs: 800, repeat: 3 });
      await new Promise((r) => setTimeout(r, 400));
      expect(childNiceValues(before)).toEqual([base]);
      expect(await timing).toMatchObject({ status: 'timeout' });
    } finally {
      await pool.close();
    }
  }, 30_000);

  (process.platform === 'linux' ? it : it.skip)('starts no child once closed, even when a child cannot get its priority back as the pool closes', async () => {
    const base = getPriority();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const os = require('node:os') as typeof import('node:os');
    const realSetPriority = os.setPriority;
    const before = childrenNow();
    const pool = new SandboxPool({ size: 1, slowAfterMs: 50, maxExtra: 0 });
    let closing: Promise<void> | undefined;
    const spy = jest.spyOn(os, 'setPriority').mockImplementation(((pid: number, priority: number) => {
      if (priority !== base) return realSetPriority(pid, priority);
      closing = pool.close(); // the pool closes just as the slow query's answer comes in
      throw Object.assign(new Error('setpriority EACCES'), { code: 'EACCES' });
    }) as typeof os.setPriority);
    try {
      await pool.ready();
      const sql = 'WITH RECURSIVE c(x) AS (SELECT 7 UNION ALL SELECT x + 1 FROM c LIMIT 1000000) SELECT count(*) FROM c';
      expect(await pool.execute({ dbPath, sql })).toMatchObject({ status: 'ok' });
      await closing;
      await new Promise((r) => setTimeout(r, 300));
      expect(childNiceValues(before)).toEqual([]);
    } finally {
      spy.mockRestore();
      await pool.close();
    }
  }, 30_000);

  it('stops renicing once a child could not get its priority back (unprivileged), instead of replacing a child per slow query', async () => {
    const base = getPriority();
    // The module object itself (an `import * as` namespace is a copy the pool does not read from).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const os = require('node:os') as typeof import('node:os');
    const realSetPriority = os.setPriority;
    const raised: number[] = [];
    const spy = jest.spyOn(os, 'setPriority').mockImplementation(((pid: number, priority: number) => {
      if (priority === base) throw Object.assign(new Error('setpriority EACCES'), { code: 'EACCES' });
      raised.push(pid);
      realSetPriority(pid, priority);
    }) as typeof os.setPriority);
    const pool = new SandboxPool({ size: 1, standby: false, slowAfterMs: 50, maxExtra: 0 });
    try {
      await pool.ready();
      for (const n of [1, 2, 3]) {
        const sql = `WITH RECURSIVE c(x) AS (SELECT ${n} UNION ALL SELECT x + 1 FROM c LIMIT 1000000) SELECT count(*) FROM c`;
        expect(await pool.execute({ dbPath, sql })).toMatchObject({ status: 'ok', rows: [[1_000_000]] });
      }
      expect(raised).toHaveLength(1);
    } finally {
      spy.mockRestore();
      await pool.close();
    }
  }, 30_000);
});
