import { join } from 'node:path';
import { evaluateExecution, timeGold } from './evaluate-execution';
import { machineLabel } from './machine';
import { GoldCache } from './gold-cache';
import { SandboxPool } from './sandbox-pool';
import { createSpecDatabase, type SpecDatabase } from './spec-database';

describe('SandboxPool', () => {
  let dir: string;
  let dbPath: string;
  let database: SpecDatabase;
  let pool: SandboxPool;
  beforeAll(() => {
    database = createSpecDatabase('shop.sqlite', `CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL, code BLOB, big INTEGER);
      INSERT INTO item VALUES (1, 'pen', 2.0, x'00ff', 9007199254740993), (2, 'ink', 3.5, NULL, 2);`);
    ({ dir, dbPath } = database);
    pool = new SandboxPool({ size: 2, deadlineMs: 5_000 });
  });
  afterAll(async () => {
    await pool.close();
    database.remove();
  });

  it('returns columns and JSON-safe rows', async () => {
    const r = await pool.execute({ dbPath, sql: 'SELECT id, name, price, code, big FROM item ORDER BY id' });
    expect(r).toMatchObject({
      status: 'ok',
      columns: ['id', 'name', 'price', 'code', 'big'],
      rows: [
        [1, 'pen', { real: 2 }, { blob: 'AP8=' }, { int: '9007199254740993' }],
        [2, 'ink', 3.5, null, 2],
      ],
      truncated: false,
    });
  });

  it('classifies errors: gate, syntax (compile) and runtime', async () => {
    expect(await pool.execute({ dbPath, sql: 'DELETE FROM item' })).toMatchObject({ status: 'error', errorKind: 'gate' });
    expect(await pool.execute({ dbPath, sql: 'SELECT 1; SELECT 2' })).toMatchObject({ status: 'error', errorKind: 'gate' });
    expect(await pool.execute({ dbPath, sql: 'SELEC 1' })).toMatchObject({ status: 'error', errorKind: 'syntax', message: expect.stringMatching(/near "SELEC"/) });
    expect(await pool.execute({ dbPath, sql: 'SELECT nope FROM item' })).toMatchObject({ status: 'error', errorKind: 'syntax' });
    expect(await pool.execute({ dbPath, sql: "SELECT json_extract('{', '$')" })).toMatchObject({ status: 'error', errorKind: 'runtime' });
    expect(await pool.execute({ dbPath: join(dir, 'absent.sqlite'), sql: 'SELECT 1' })).toMatchObject({ status: 'error', errorKind: 'runtime', message: expect.stringMatching(/^cannot open database .*absent\.sqlite/) });
  });

  it('reads an unresolvable double-quoted token as a string, as Python sqlite3 does', async () => {
    expect(await pool.execute({ dbPath, sql: 'SELECT id FROM item WHERE name = "ink"' })).toMatchObject({ status: 'ok', rows: [[2]] });
    expect(await pool.execute({ dbPath, sql: 'SELECT "name" FROM item WHERE id = 1' })).toMatchObject({ status: 'ok', rows: [['pen']] });
  });

  it('times every run when asked to repeat, and honours a per-request deadline', async () => {
    const r = await pool.execute({ dbPath, sql: 'SELECT * FROM item', repeat: 5 });
    expect(r.timingsMs).toHaveLength(5);
    const slow = await pool.execute({ dbPath, sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c', deadlineMs: 150 });
    expect(slow.status).toBe('timeout');
    expect(slow.elapsedMs).toBeGreaterThanOrEqual(150);
    // The query never ends on its own: any answer is the deadline's. The bound only says it came near 150 ms, with
    // room for a loaded machine to kill the query and answer.
    expect(slow.elapsedMs).toBeLessThan(1_000);
  });

  it('runs each gold query once per (version, item) with a gold cache, persisted to a file', async () => {
    const cacheFile = join(dir, 'gold.jsonl');
    const cache = new GoldCache(cacheFile);
    const items = [{ dbPath, goldSql: 'SELECT name FROM item', predSql: 'SELECT name FROM item ORDER BY id DESC', itemId: 'dev-0' }];
    const first = await evaluateExecution({ semantics: 'spider', pool, items, goldCache: cache, versionHash: 'v1' });
    const second = await evaluateExecution({ semantics: 'spider', pool, items, goldCache: cache, versionHash: 'v1' });
    expect(first[0]).toMatchObject({ correct: true, goldCached: false });
    expect(second[0]).toMatchObject({ correct: true, goldCached: true });
    const reloaded = new GoldCache(cacheFile);
    expect(reloaded.size).toBe(1);
    expect(reloaded.get('v1', 'dev-0')).toMatchObject({ result: { status: 'ok', rows: [['pen'], ['ink']] }, machine: expect.any(String) });
    expect(reloaded.get('v2', 'dev-0')).toBeUndefined();
  });

  it('caches gold timings with the machine they were measured on', async () => {
    const cache = new GoldCache();
    const item = { dbPath, goldSql: 'SELECT * FROM item', itemId: 'dev-9' };
    const first = await timeGold({ semantics: 'bird', pool, item, goldCache: cache, versionHash: 'v1', repeat: 4 });
    expect(first).toHaveLength(4);
    expect(await timeGold({ semantics: 'bird', pool, item, goldCache: cache, versionHash: 'v1', repeat: 3 })).toEqual(first!.slice(0, 3));
    expect(cache.get('v1', 'dev-9')).toMatchObject({ result: { status: 'ok' }, machine: machineLabel(), timingsMs: first });
  });

  it('refuses work once closed', async () => {
    const small = new SandboxPool({ size: 1 });
    await small.close();
    await expect(small.execute({ dbPath, sql: 'SELECT 1' })).rejects.toThrow(/closed/);
  });
});

describe('SandboxPool whose children cannot start', () => {
  it('stops respawning and rejects work with the reason instead of spinning', async () => {
    const pool = new SandboxPool({ size: 1, heapMb: 1 }); // a 1 MiB V8 heap cannot even load the child
    const err = await pool.execute({ dbPath: ':memory:', sql: 'SELECT 1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/keeps dying before it is ready/);
    await expect(pool.execute({ dbPath: ':memory:', sql: 'SELECT 1' })).rejects.toThrow(/keeps dying/);
    await pool.close();
  }, 60_000);
});
