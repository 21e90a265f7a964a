import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { LlmClient, LlmError, type LlmBatchJob, type LlmRequest } from '@sqlsweep/llm';
import { LlmCacheRepository } from '@sqlsweep/db';
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { startLlmSimulator, type LlmSimulator, type LlmSimulatorHandle } from './server';
import { BIRD_SAMPLE, TEST_SIM_CONFIG, sqlOf, sqlPrompt, testCatalog } from './testing/sim-fixtures';

interface BirdItem { question: string; evidence: string; SQL: string }

describe('batch APIs through both SDKs against llm-sim', () => {
  let t: TestDatabase;
  let pool: Pool;
  let sim: LlmSimulatorHandle & { simulator: LlmSimulator };
  let client: LlmClient;
  let repo: LlmCacheRepository;
  const bird = JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as BirdItem[];

  beforeAll(async () => {
    t = await createTestDatabase();
    pool = new Pool({ connectionString: t.url, max: 2 });
    sim = await startLlmSimulator({ datasetDirs: [BIRD_SAMPLE], config: TEST_SIM_CONFIG });
    repo = new LlmCacheRepository(pool);
    client = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url, SIM_KEY: 'sk-batch-test' }, cache: repo });
  });
  afterAll(async () => {
    await sim?.close();
    await pool?.end();
    await t?.drop();
  });

  const requests = (model: string, namespace: string): LlmRequest[] => [
    ...bird.slice(10, 14).map((item) => ({
      model,
      messages: sqlPrompt(item.question, item.evidence),
      temperature: 0,
      sampleIndex: 0,
      templateVersion: 'zero-shot@1',
      cacheNamespace: namespace,
    })),
    // A duplicate of the first, and a request the simulator cannot answer (a per-item error, not a batch failure).
    { model, messages: sqlPrompt(bird[10]!.question, bird[10]!.evidence), temperature: 0, sampleIndex: 0, templateVersion: 'zero-shot@1', cacheNamespace: namespace },
    { model, messages: sqlPrompt('Which unicorn owns the castle?'), temperature: 0, sampleIndex: 0, templateVersion: 'zero-shot@1', cacheNamespace: namespace },
  ];

  async function waitForEnd(job: LlmBatchJob): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const status = await client.batchStatus(job);
      if (status.state !== 'in_progress') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`batch ${job.batchId} did not end`);
  }

  it.each([
    ['OpenAI Batch API', 't-ok', 'batch-openai'],
    ['Anthropic Message Batches', 'claude-t-ok', 'batch-anthropic'],
  ])('%s: submit, poll, ingest at the batch price, idempotent re-ingest, cache answers a resubmission', async (_name, model, namespace) => {
    const { job, cached } = await client.submitBatch(requests(model, namespace));
    expect(cached).toHaveLength(0);
    expect(job).not.toBeNull();
    expect(job!.items).toHaveLength(5); // the duplicate is submitted once
    await expect(client.ingestBatch(job!)).rejects.toThrow(/has not ended yet/);
    await waitForEnd(job!);

    const results = await client.ingestBatch(job!);
    const ok = results.filter((r) => r.response);
    expect(ok).toHaveLength(4);
    for (const r of ok) {
      const item = bird.find((b) => r.request.messages[1]!.content.includes(b.question))!;
      expect(sqlOf(r.response!.output)).toBe(item.SQL);
      expect(r.response!.simulated).toBe(true);
      const full = (r.response!.usage.inputTokens * 2 + r.response!.usage.outputTokens * 8) / 1e6;
      expect(r.response!.costUsd).toBeCloseTo(full / 2, 9);
    }
    const failed = results.filter((r) => r.error);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toBeInstanceOf(LlmError);
    expect(failed[0]!.error!.message).toMatch(/no known question/);
    expect(await repo.countByNamespace(namespace)).toBe(4);

    const again = await client.ingestBatch(job!);
    expect(again.map((r) => r.response?.output)).toEqual(results.map((r) => r.response?.output));
    expect(await repo.countByNamespace(namespace)).toBe(4);

    const resubmitted = await client.submitBatch(requests(model, namespace).slice(0, 4));
    expect(resubmitted.job).toBeNull();
    expect(resubmitted.cached.every((r) => r.response?.cached && r.response.costUsd === 0)).toBe(true);
  });
});
