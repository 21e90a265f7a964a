import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createRedisConnection, type RedisClient } from '@sqlsweep/queue';
import { executionKey, SandboxPool } from '@sqlsweep/sql-sandbox';
import { testQueuePrefix, testRedisUrl } from '@sqlsweep/testing';
import { RedisSharedExecutions } from './shared-executions';

jest.setTimeout(60_000);

/** About a second of SQLite work, the same answer every time. */
const SLOW = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3000000) SELECT count(*) FROM c';

/** Two worker processes' sandboxes stand for two workers: each pool is one process's, with its own claims owner. */
describe('slow sandbox queries shared between workers through Redis', () => {
  let dir: string;
  let dbPath: string;
  let redis: RedisClient;
  const prefix = testQueuePrefix();
  const pools: SandboxPool[] = [];
  const pool = (deadlineMs = 10_000) => {
    const p = new SandboxPool({ size: 1, standby: true, deadlineMs, shared: new RedisSharedExecutions(redis, prefix) });
    pools.push(p);
    return p;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-shared-sql-'));
    dbPath = join(dir, 'db.sqlite');
    const db = new Database(dbPath);
    db.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);');
    db.close();
    redis = createRedisConnection(testRedisUrl());
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    const keys = await redis.keys(`${prefix}:sql:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a slow query once between two processes, and a later process takes the stored verdict', async () => {
    const [a, b] = [pool(), pool()];
    await Promise.all([a.ready(), b.ready()]);
    const [ra, rb] = await Promise.all([a.execute({ dbPath, sql: SLOW }), b.execute({ dbPath, sql: SLOW })]);
    expect(ra).toMatchObject({ status: 'ok', rows: [[3_000_000]] });
    expect(rb).toEqual(ra);
    expect(a.crossProcessHits + b.crossProcessHits).toBe(1);

    const c = pool();
    await c.ready();
    expect(await c.execute({ dbPath, sql: SLOW })).toEqual(ra);
    expect(c.crossProcessHits).toBe(1);
  });

  it('runs the query itself once another holder\'s claim lapses without a verdict (its process died)', async () => {
    const sql = `${SLOW} -- lapse`;
    const d = pool(8_000);
    await d.ready();
    // A process that claimed the query and died: its claim lapses after 1.5 s.
    const dead = new RedisSharedExecutions(redis, prefix);
    expect(await dead.lookupOrClaim(executionKey(dbPath, sql, 8_000)!, 1_500)).toEqual({ claimed: true });
    const started = performance.now();
    expect(await d.execute({ dbPath, sql })).toMatchObject({ status: 'ok', rows: [[3_000_000]] });
    expect(performance.now() - started).toBeGreaterThan(1_400);
    expect(d.crossProcessHits).toBe(0);
    // It stored its verdict for the others.
    expect((await new RedisSharedExecutions(redis, prefix).lookupOrClaim(executionKey(dbPath, sql, 8_000)!, 1_000)).result).toMatchObject({ status: 'ok' });
  });

  it('runs the query itself at once when the holder could not share its verdict', async () => {
    const sql = `${SLOW} -- unshared`;
    const holder = new RedisSharedExecutions(redis, prefix);
    const key = executionKey(dbPath, sql, 8_000)!;
    expect(await holder.lookupOrClaim(key, 60_000)).toEqual({ claimed: true });
    await holder.putAndRelease(key, undefined, 60_000); // too large, or the pool's own error
    expect(await new RedisSharedExecutions(redis, prefix).lookupOrClaim(key, 1_000)).toEqual({ claimed: false, unshared: true });
    const e = pool(8_000);
    await e.ready();
    expect(await e.execute({ dbPath, sql })).toMatchObject({ status: 'ok', rows: [[3_000_000]] });
    expect(e.crossProcessHits).toBe(0);
  });

  it('answers a request waiting on another holder when the pool closes', async () => {
    const sql = `${SLOW} -- closing`;
    const f = new SandboxPool({ size: 1, standby: false, deadlineMs: 8_000, shared: new RedisSharedExecutions(redis, prefix) });
    await f.ready();
    expect(await new RedisSharedExecutions(redis, prefix).lookupOrClaim(executionKey(dbPath, sql, 8_000)!, 60_000)).toEqual({ claimed: true });
    const waiting = f.execute({ dbPath, sql });
    await new Promise((r) => setTimeout(r, 600)); // past slowAfterMs: its own run stopped, it waits for the holder
    await f.close();
    expect(await waiting).toMatchObject({ status: 'error', message: 'sandbox pool closed' });
  });
});
