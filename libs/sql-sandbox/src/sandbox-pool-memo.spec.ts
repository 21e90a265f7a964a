import { renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { TimedExecutionResult } from './execution-result';
import { isDeterministicSql, isLasting, ResultMemo } from './result-memo';
import { SandboxPool } from './sandbox-pool';
import { createSpecDatabase, type SpecDatabase } from './spec-database';

const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
/** Takes a noticeable while (a few hundred ms), and ends. */
const SLOWISH = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 500000) SELECT count(*) FROM c';

describe('SandboxPool running identical requests once', () => {
  let database: SpecDatabase;
  let dbPath: string;
  let pool: SandboxPool;
  beforeAll(async () => {
    database = createSpecDatabase('memo.sqlite', `CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, big INTEGER);
      INSERT INTO item VALUES (1, 'pen', 9007199254740993), (2, 'ink', 2);`);
    ({ dbPath } = database);
    pool = new SandboxPool({ size: 2, deadlineMs: 5_000 });
    await pool.ready();
  });
  afterAll(async () => {
    await pool.close();
    database.remove();
  });

  it('runs concurrent identical requests once, and answers a later one from the memo with the first run\'s time', async () => {
    const before = pool.executions;
    const results = await Promise.all(Array.from({ length: 5 }, () => pool.execute({ dbPath, sql: SLOWISH })));
    expect(pool.executions - before).toBe(1);
    expect(results.every((r) => r.status === 'ok' && r.rows[0][0] === 500_000)).toBe(true);
    expect(new Set(results.map((r) => r.elapsedMs)).size).toBe(1);
    const hitsBefore = pool.memoHits;
    const again = await pool.execute({ dbPath, sql: SLOWISH });
    expect(pool.executions - before).toBe(1);
    expect(pool.memoHits - hitsBefore).toBe(1);
    expect(again.elapsedMs).toBe(results[0].elapsedMs);
  });

  it('always runs a timing request (repeat > 1) by default, and keeps different deadlines apart', async () => {
    const sql = 'SELECT name FROM item ORDER BY id';
    await pool.execute({ dbPath, sql });
    const before = pool.executions;
    const timings = await Promise.all([pool.execute({ dbPath, sql, repeat: 3 }), pool.execute({ dbPath, sql, repeat: 3 })]);
    expect(pool.executions - before).toBe(2);
    expect(timings.every((t) => t.timingsMs?.length === 3)).toBe(true);
    await pool.execute({ dbPath, sql, deadlineMs: 4_000 });
    expect(pool.executions - before).toBe(3);
  });

  it('with timingReuseMs, times identical timing requests once and reuses the timing for that long only', async () => {
    const reusing = new SandboxPool({ size: 2, standby: false, timingReuseMs: 600 });
    try {
      const sql = 'SELECT name FROM item ORDER BY id';
      const [a, b] = await Promise.all([reusing.execute({ dbPath, sql, repeat: 3 }), reusing.execute({ dbPath, sql, repeat: 3 })]);
      expect(reusing.executions).toBe(1);
      expect(a.timingsMs).toHaveLength(3);
      expect(b.timingsMs).toEqual(a.timingsMs);
      a.timingsMs![0] = -1; // a caller's copy is its own
      expect((await reusing.execute({ dbPath, sql, repeat: 3 })).timingsMs).toEqual(b.timingsMs);
      expect(reusing.executions).toBe(1);
      // Another repeat count, or the plain query, is another request.
      expect((await reusing.execute({ dbPath, sql, repeat: 4 })).timingsMs).toHaveLength(4);
      await reusing.execute({ dbPath, sql });
      expect(reusing.executions).toBe(3);
      // SQL whose answer is not fixed by the file and the text is timed every time.
      await Promise.all([reusing.execute({ dbPath, sql: 'SELECT random()', repeat: 2 }), reusing.execute({ dbPath, sql: 'SELECT random()', repeat: 2 })]);
      expect(reusing.executions).toBe(5);
      await new Promise((r) => setTimeout(r, 700));
      expect((await reusing.execute({ dbPath, sql, repeat: 3 })).timingsMs).not.toEqual(b.timingsMs);
      expect(reusing.executions).toBe(6);
    } finally {
      await reusing.close();
    }
  });

  it('hands out copies: a caller changing its result changes nobody else\'s', async () => {
    const sql = 'SELECT id, name, big FROM item ORDER BY id';
    const [a, b] = await Promise.all([pool.execute({ dbPath, sql }), pool.execute({ dbPath, sql })]);
    if (a.status !== 'ok' || b.status !== 'ok') throw new Error('expected rows');
    a.rows[0][1] = 'changed';
    (a.rows[0][2] as { int: string }).int = '0';
    a.rows.pop();
    expect(b.rows).toEqual([[1, 'pen', { int: '9007199254740993' }], [2, 'ink', 2]]);
    const c = await pool.execute({ dbPath, sql });
    expect(c).toMatchObject({ status: 'ok', rows: [[1, 'pen', { int: '9007199254740993' }], [2, 'ink', 2]] });
  });

  it('keeps a timeout (same query, same deadline) and errors from the database', async () => {
    const before = pool.executions;
    const first = await pool.execute({ dbPath, sql: RUNAWAY, deadlineMs: 200 });
    expect(first.status).toBe('timeout');
    const start = performance.now();
    const second = await pool.execute({ dbPath, sql: RUNAWAY, deadlineMs: 200 });
    expect(performance.now() - start).toBeLessThan(100);
    expect(second).toEqual(first);
    await pool.execute({ dbPath, sql: 'SELECT nope FROM item' });
    expect(await pool.execute({ dbPath, sql: 'SELECT nope FROM item' })).toMatchObject({ status: 'error', errorKind: 'syntax' });
    expect(pool.executions - before).toBe(2);
  });

  it('keeps a timeout for memoTimeoutMs only', async () => {
    const short = new SandboxPool({ size: 1, memoTimeoutMs: 500 });
    try {
      await short.execute({ dbPath, sql: RUNAWAY, deadlineMs: 100 });
      await short.execute({ dbPath, sql: RUNAWAY, deadlineMs: 100 });
      expect(short.executions).toBe(1);
      await new Promise((r) => setTimeout(r, 600));
      expect(await short.execute({ dbPath, sql: RUNAWAY, deadlineMs: 100 })).toMatchObject({ status: 'timeout' });
      expect(short.executions).toBe(2);
    } finally {
      await short.close();
    }
  });

  it('runs again once the file under the path is another one', async () => {
    const scratch = createSpecDatabase('x.sqlite', '');
    const { dir } = scratch;
    const path = join(dir, 'swap.sqlite');
    const write = (file: string, v: number) => {
      const db = new Database(file);
      db.exec(`CREATE TABLE v (x INTEGER); INSERT INTO v VALUES (${v});`);
      db.close();
    };
    write(path, 1);
    expect(await pool.execute({ dbPath: path, sql: 'SELECT x FROM v' })).toMatchObject({ rows: [[1]] });
    const before = pool.executions;
    await pool.execute({ dbPath: path, sql: 'SELECT x FROM v' });
    expect(pool.executions).toBe(before);
    write(join(dir, 'next.sqlite'), 2);
    renameSync(join(dir, 'next.sqlite'), path);
    // Run again, not answered from the memo. (What it reads is the children's business: a child keeps its
    // connection to the file it opened under that path; replicas are named by their sha256 and never replaced.)
    await pool.execute({ dbPath: path, sql: 'SELECT x FROM v' });
    expect(pool.executions).toBe(before + 1);
    scratch.remove();
  });

  it('always runs SQL whose answer is not fixed by the file and the text (random(), the clock)', async () => {
    const sql = 'SELECT random(), CURRENT_TIMESTAMP';
    const before = pool.executions;
    const [a, b] = await Promise.all([pool.execute({ dbPath, sql }), pool.execute({ dbPath, sql })]);
    const c = await pool.execute({ dbPath, sql });
    expect(pool.executions - before).toBe(3);
    if (a.status !== 'ok' || b.status !== 'ok' || c.status !== 'ok') throw new Error('expected rows');
    expect(new Set([a, b, c].map((r) => JSON.stringify(r.rows[0][0]))).size).toBe(3); // three draws of 64 bits
    const fixed = "SELECT strftime('%Y', '2020-05-01')";
    await pool.execute({ dbPath, sql: fixed });
    await pool.execute({ dbPath, sql: fixed });
    expect(pool.executions - before).toBe(4);
  });

  it('tells deterministic SQL from SQL that reads the clock, random() or connection state', () => {
    for (const sql of [
      'SELECT random()', 'SELECT hex(RANDOMBLOB(4))', 'SELECT current_date', 'SELECT 1 WHERE CURRENT_TIME > 0',
      "SELECT date('now')", "SELECT strftime('%Y', 'NOW', '-1 year')", 'SELECT date("now")', 'SELECT datetime ( )',
      'SELECT julianday() - julianday(d) FROM t', 'SELECT "random"()', 'SELECT [random]()', 'SELECT changes()',
    ]) expect([sql, isDeterministicSql(sql)]).toEqual([sql, false]);
    for (const sql of [
      'SELECT name FROM item', "SELECT strftime('%Y', d) FROM t", "SELECT date('2020-01-01', '+1 day')",
      "SELECT 'random()' AS label", "SELECT x FROM t -- random()\n", "SELECT 'nowhere'", 'SELECT randomness FROM t',
    ]) expect([sql, isDeterministicSql(sql)]).toEqual([sql, true]);
  });

  it('does not keep a result larger than memoBytes', async () => {
    const small = new SandboxPool({ size: 1, standby: false, memoBytes: 64 * 1024 });
    try {
      const big = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000) SELECT x, printf(\'%020d\', x) FROM c';
      await small.execute({ dbPath, sql: big });
      await small.execute({ dbPath, sql: big });
      expect(small.executions).toBe(2);
      await small.execute({ dbPath, sql: 'SELECT 1' });
      await small.execute({ dbPath, sql: 'SELECT 1' });
      expect(small.executions).toBe(3);
    } finally {
      await small.close();
    }
  });
});

describe('isLasting', () => {
  it('keeps what the query decides, not what the process or the moment did', () => {
    const runtime = (message: string): TimedExecutionResult => ({ status: 'error', errorKind: 'runtime', message, elapsedMs: 1 });
    for (const message of ['cannot open database /d/x.sqlite: unable to open database file', 'database is locked', 'out of memory', 'disk I/O error'])
      expect([message, isLasting(runtime(message))]).toEqual([message, false]);
    expect(isLasting(runtime('integer overflow'))).toBe(true);
    expect(isLasting({ status: 'error', errorKind: 'syntax', message: 'no such column: nope', elapsedMs: 1 })).toBe(true);
    expect(isLasting({ status: 'timeout', elapsedMs: 1 })).toBe(true);
  });
});

describe('ResultMemo', () => {
  const rows = (n: number): TimedExecutionResult => ({
    status: 'ok', columns: ['x'], rows: Array.from({ length: n }, (_, i) => [`value-${i}`]), truncated: false, elapsedMs: 1,
  });

  it('drops the least recently used results to stay within its size', () => {
    const memo = new ResultMemo({ maxEntries: 100, maxBytes: 20_000 });
    memo.set('a', rows(100));
    memo.set('b', rows(100));
    expect(memo.get('a')).toBeDefined(); // now b is the least recently used
    memo.set('c', rows(100));
    expect(memo.get('b')).toBeUndefined();
    expect(memo.get('a')).toBeDefined();
    expect(memo.get('c')).toBeDefined();
    expect(memo.bytes).toBeLessThanOrEqual(20_000);
    expect(memo.evictions).toBe(1);
  });

  it('drops the least recently used results to stay within its count', () => {
    const memo = new ResultMemo({ maxEntries: 2, maxBytes: 1e9 });
    memo.set('a', rows(1));
    memo.set('b', rows(1));
    memo.set('c', rows(1));
    expect([memo.get('a'), memo.get('b'), memo.get('c')].map(Boolean)).toEqual([false, true, true]);
    expect(memo.size).toBe(2);
  });
});
