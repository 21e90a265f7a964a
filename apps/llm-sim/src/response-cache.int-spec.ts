import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { LlmClient } from '@sqlsweep/llm';
import { LlmCacheRepository } from '@sqlsweep/db';
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { startLlmSimulator, type LlmSimulator, type LlmSimulatorHandle } from './server';
import { BIRD_SAMPLE, TEST_SIM_CONFIG, sqlPrompt, testCatalog } from './testing/sim-fixtures';

interface BirdItem { question: string; evidence: string; SQL: string }

describe('response cache in Postgres, through the client and llm-sim', () => {
  let t: TestDatabase;
  const key = 'sk-test-CACHE-SECRET-5e2d8a';
  let pool: Pool;
  let dbUrl: string;
  let sim: LlmSimulatorHandle & { simulator: LlmSimulator };
  let client: LlmClient;
  const logs: object[] = [];
  const bird = JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as BirdItem[];

  beforeAll(async () => {
    t = await createTestDatabase();
    dbUrl = t.url;
    pool = new Pool({ connectionString: dbUrl, max: 4 });
    sim = await startLlmSimulator({ datasetDirs: [BIRD_SAMPLE], config: TEST_SIM_CONFIG });
    client = new LlmClient({
      catalog: testCatalog(),
      env: { SIM_URL: sim.url, SIM_KEY: key },
      cache: new LlmCacheRepository(pool),
      logger: (o) => logs.push(o),
    });
  });
  afterAll(async () => {
    await sim?.close();
    await pool?.end();
    await t?.drop();
  });

  const req = (item: BirdItem, extra: object = {}) => ({
    model: 't-half',
    messages: sqlPrompt(item.question, item.evidence),
    temperature: 0.7,
    sampleIndex: 1,
    templateVersion: 'zero-shot@1',
    ...extra,
  });
  const served = (model = 't-half') => sim.simulator.statsSnapshot()[model]?.ok ?? 0;

  it('collapses identical concurrent calls into one provider call and serves repeats from Postgres', async () => {
    const before = served();
    const results = await Promise.all(Array.from({ length: 8 }, () => client.complete(req(bird[0]!))));
    expect(served() - before).toBe(1);
    expect(new Set(results.map((r) => r.output)).size).toBe(1);
    expect(results.filter((r) => !r.cached)).toHaveLength(1);
    expect(results.filter((r) => r.cached).every((r) => r.costUsd === 0)).toBe(true);

    // A fresh client (another process) finds the response in Postgres: no second payment.
    const other = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url, SIM_KEY: key }, cache: new LlmCacheRepository(pool) });
    const again = await other.complete(req(bird[0]!));
    expect(again.cached).toBe(true);
    expect(again.output).toBe(results[0]!.output);
    expect(again.usage).toEqual(results[0]!.usage);
    expect(served() - before).toBe(1);
  });

  it('collapses identical concurrent calls across processes through a Postgres claim', async () => {
    const before = served('t-ok');
    // Two clients with their own pools stand for two worker processes.
    const otherPool = new Pool({ connectionString: dbUrl, max: 4 });
    try {
      const a = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url, SIM_KEY: key }, cache: new LlmCacheRepository(pool) });
      const b = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url, SIM_KEY: key }, cache: new LlmCacheRepository(otherPool) });
      const slow = { ...req(bird[5]!), model: 't-ok' };
      const results = await Promise.all([a, b, a, b, b, a].map((c) => c.complete(slow)));
      expect(served('t-ok') - before).toBe(1);
      expect(new Set(results.map((r) => r.output)).size).toBe(1);
      expect(results.filter((r) => !r.cached)).toHaveLength(1);
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM llm_cache_claims');
      expect(rows[0].n).toBe(0);
      // Claims are logged, so that a crash keeps them (but for its last fraction of a second, their commits being
      // asynchronous): an emptied table let another worker pay for a call whose answer a worker held in memory.
      const persistence = await pool.query("SELECT relpersistence FROM pg_class WHERE relname = 'llm_cache_claims'");
      expect(persistence.rows[0].relpersistence).toBe('p');
    } finally {
      await otherPool.end();
    }
  });

  it('keys on sample index, template version and namespace; --no-cache always calls', async () => {
    const before = served();
    await client.complete(req(bird[1]!));
    await client.complete(req(bird[1]!, { sampleIndex: 2 }));
    await client.complete(req(bird[1]!, { templateVersion: 'zero-shot@2' }));
    await client.complete(req(bird[1]!, { cacheNamespace: 'sweep-42' }));
    expect(served() - before).toBe(4);
    await client.complete(req(bird[1]!, { noCache: true }));
    expect(served() - before).toBe(5);
    await client.complete(req(bird[1]!, { cacheNamespace: 'sweep-42' }));
    expect(served() - before).toBe(5);
    expect(await new LlmCacheRepository(pool).countByNamespace('sweep-42')).toBe(1);
  });

  it('never caches errors', async () => {
    const flaky = { ...req(bird[2]!), model: 't-flaky' };
    await expect(client.complete(flaky)).rejects.toMatchObject({ code: 'server' });
    await expect(client.complete(flaky)).rejects.toMatchObject({ code: 'server' });
    expect(sim.simulator.statsSnapshot()['t-flaky']?.serverErrors).toBe(2);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM llm_response_cache WHERE model = 't-flaky'");
    expect(rows[0].n).toBe(0);
  });

  it('stores no API key anywhere in Postgres or the logs', async () => {
    const { rows } = await pool.query('SELECT * FROM llm_response_cache');
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(JSON.stringify(logs)).not.toContain(key);
  });
});
