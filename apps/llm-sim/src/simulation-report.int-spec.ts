import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { LlmCacheRepository } from '@sqlsweep/db';
import { LlmClient, type LlmBatchJob, type LlmRequest } from '@sqlsweep/llm';
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { startLlmSimulator, type LlmSimulatorHandle } from './server';
import { BIRD_SAMPLE, TEST_SIM_CONFIG, testCatalog } from './testing/sim-fixtures';

interface BirdItem { question: string; evidence: string; SQL: string }

/** libs/llm reads the simulator's report (features, probability) from both SDKs, online and in batches. */
describe('LlmResponse.simulation from llm-sim', () => {
  let sim: LlmSimulatorHandle;
  let client: LlmClient;
  const bird = JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as BirdItem[];
  const request = (model: string, i: number): LlmRequest => ({
    model, temperature: 0, sampleIndex: 0, templateVersion: 'sim-report@1', noCache: true,
    messages: [
      { role: 'system', content: 'You are a SQLite expert. Answer with one SQLite query in a ```sql fenced block.' },
      { role: 'user', content: `CREATE TABLE t (id INTEGER PRIMARY KEY);\n\nQuestion: ${bird[i]!.question}\nEvidence: ${bird[i]!.evidence}` },
    ],
  });
  const report = { probability: expect.any(Number), features: expect.objectContaining({ schemaRecall: expect.any(Number), goldReachable: expect.any(Boolean), evidence: true }) };

  beforeAll(async () => {
    sim = await startLlmSimulator({ datasetDirs: [BIRD_SAMPLE], config: TEST_SIM_CONFIG });
    client = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url, SIM_KEY: 'sk-sim-report' } });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it.each(['t-ok', 'claude-t-ok'])('%s: an online answer carries the features and probability', async (model) => {
    const r = await client.complete(request(model, 3));
    expect(r.simulation).toEqual(report);
    expect(r.simulation!.probability).toBeGreaterThanOrEqual(0);
    expect(r.simulation!.probability).toBeLessThanOrEqual(1);
  });

  it.each(['t-ok', 'claude-t-ok'])('%s: each batch result carries its own report', async (model) => {
    const { job } = await client.submitBatch([request(model, 5), request(model, 6)]);
    for (let i = 0; i < 100 && (await client.batchStatus(job as LlmBatchJob)).state === 'in_progress'; i++) await new Promise((r) => setTimeout(r, 50));
    const results = await client.ingestBatch(job!);
    expect(results).toHaveLength(2);
    for (const r of results) expect(r.response?.simulation).toEqual(report);
  });

  it('an answer served from the response cache keeps the report of the call that paid for it', async () => {
    const t: TestDatabase = await createTestDatabase();
    const pool = new Pool({ connectionString: t.url, max: 2 });
    try {
      const cached = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url, SIM_KEY: 'sk-sim-report' }, cache: new LlmCacheRepository(pool) });
      const paid = await cached.complete({ ...request('t-ok', 7), noCache: false, cacheNamespace: 'sim-report' });
      const again = await cached.complete({ ...request('t-ok', 7), noCache: false, cacheNamespace: 'sim-report' });
      expect(paid.cached).toBe(false);
      expect(again.cached).toBe(true);
      expect(paid.simulation).toEqual(report);
      expect(again.simulation).toEqual(paid.simulation);
    } finally {
      await pool.end();
      await t.drop();
    }
  });
});
