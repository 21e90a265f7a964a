import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { GoldCache, SandboxPool } from '@sqlsweep/sql-sandbox';
import { checkGoldExecution, prepareDatasetVersion } from './index';

const SPIDER = resolve(__dirname, '../../../test/fixtures/benchmark-samples/spider-sample');

describe('prepareDatasetVersion and checkGoldExecution', () => {
  let root: string;
  let pool: SandboxPool;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sqlsweep-version-'));
    pool = new SandboxPool({ size: 2, deadlineMs: 500 });
  });
  afterAll(async () => {
    await pool.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('hashes, replicates and flags gold queries that fail or run away, filling the gold cache', async () => {
    const data = join(root, 'bird');
    mkdirSync(join(data, 'dev_databases', 'shop'), { recursive: true });
    const db = new Database(join(data, 'dev_databases', 'shop', 'shop.sqlite'));
    db.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'pen');");
    db.close();
    writeFileSync(
      join(data, 'dev.json'),
      JSON.stringify([
        { question_id: 1, db_id: 'shop', question: 'q', SQL: 'SELECT name FROM item' },
        { question_id: 2, db_id: 'shop', question: 'q', SQL: "SELECT json_extract('{', '$') FROM item" },
        { question_id: 3, db_id: 'shop', question: 'q', SQL: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c' },
      ]),
    );
    const version = await prepareDatasetVersion({ format: 'bird', path: data, dataDir: join(root, 'cache') });
    expect(version.versionHash).toMatch(/^[0-9a-f]{64}$/);
    expect(version.replicas.get('shop')).toBe(join(root, 'cache', 'replicas', `${version.databaseFiles.get('shop')!.sha256}.sqlite`));
    expect(version.files.map((f) => f.path)).toEqual(['dev.json', 'dev_databases/shop/shop.sqlite']);
    const cache = new GoldCache();
    const problems = await checkGoldExecution({ dataset: version.dataset, pool, replicas: version.replicas, goldCache: cache, versionHash: version.versionHash });
    expect(problems).toEqual([
      { file: 'dev.json', item: 'dev-2', flag: 'error', message: expect.stringMatching(/^gold SQL fails \(runtime\): malformed JSON/) },
      { file: 'dev.json', item: 'dev-3', flag: 'timeout', message: expect.stringMatching(/^gold SQL timed out after \d+ ms/) },
    ]);
    expect(cache.get(version.versionHash, 'dev-1')?.result).toMatchObject({ status: 'ok', rows: [['pen']] });
    expect(cache.get(version.versionHash, 'dev-3')).toBeUndefined(); // timeouts are not cached
  });

  it('finds every Spider sample dev gold query runnable', async () => {
    const version = await prepareDatasetVersion({ format: 'spider', path: SPIDER, dataDir: join(root, 'cache') });
    const problems = await checkGoldExecution({ dataset: version.dataset, pool, replicas: version.replicas });
    expect(problems).toEqual([]);
  }, 60_000);
});
