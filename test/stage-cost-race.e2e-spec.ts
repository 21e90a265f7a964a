import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import type { StageJobPayload } from '@sqlsweep/contracts';
import { ApiMetricsRepository, LlmCacheRepository, ReportRepository, RunRepository, StageRepository } from '@sqlsweep/db';
import { costUsd, LlmClient, type LlmResponse } from '@sqlsweep/llm';
import { parseSimConfig, startLlmSimulator, type LlmSimulator, type LlmSimulatorHandle } from '@sqlsweep/llm-sim';
import { claimCatalog, claimRequest } from '@sqlsweep/llm-sim/src/testing/claim-fixtures';
import { BIRD_SAMPLE } from '@sqlsweep/llm-sim/src/testing/sim-fixtures';
import { Advancer } from '@sqlsweep/orchestration';
import type { LlmStage, StageContext } from '@sqlsweep/pipelines';
import { QueueClient } from '@sqlsweep/queue';
import { createTestDatabase, testQueuePrefix, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';
import { llmStageRun, StageRunner, type StageRunnerDeps } from '@sqlsweep/worker';

const redisUrl = testRedisUrl();

/** The stage under test asks once and stores the raw answer: what matters here is the accounting around it. */
const askStage: LlmStage = { kind: 'llm', prompt: () => { throw new Error('not used'); }, parse: (r: LlmResponse) => ({ sql: r.output }) };

/**
 * Two executions of one stage key at once (two workers, each with its LlmClient and StageRunner, real simulator, real
 * Postgres): one pays the call, the other takes the answer from the response cache. Whichever writes the row, the
 * stored cost is the paid call's, and the run's spend equals the simulator's bill.
 */
describe('exact stage cost when two executions of one stage race', () => {
  let db: TestDatabase;
  let queue: QueueClient;
  let sim: LlmSimulatorHandle & { simulator: LlmSimulator };
  const pools: Pool[] = [];
  const clients: LlmClient[] = [];
  const questions = (JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as Array<{ question: string }>).map((q) => q.question);

  beforeAll(async () => {
    db = await createTestDatabase();
    queue = new QueueClient(redisUrl, testQueuePrefix());
    sim = await startLlmSimulator({ datasetDirs: [BIRD_SAMPLE], config: parseSimConfig({ models: { 't-mid': { accuracy: 1, latencyMs: { median: 300, p95: 300 } } } }, 'race') });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close(0)));
    await Promise.all(pools.map((p) => p.end()));
    await sim?.close();
    await queue?.close();
    await db?.drop();
  });

  /** One worker process: its own pool, LLM client (claims in Postgres) and stage runner. */
  function worker(): { llm: LlmClient; runner: StageRunner } {
    const pool = new Pool({ connectionString: db.url, max: 2 });
    pools.push(pool);
    const llm = new LlmClient({ catalog: claimCatalog(), env: { SIM_URL: sim.url, SIM_KEY: 'sk-race' }, cache: new LlmCacheRepository(pool), claims: {} });
    clients.push(llm);
    const unused = undefined as never;
    const runs = new RunRepository(db.db);
    const runner = new StageRunner({
      advancer: new Advancer(runs, queue), queue, stages: new StageRepository(db.db), log: () => undefined, llm,
      retrieval: unused, datasets: unused, sandbox: unused, replicas: unused, sqlDeadlineMs: 1_000,
    } as StageRunnerDeps);
    return { llm, runner };
  }

  it('stores the paid call\'s cost whoever writes first, and the run spends what the simulator billed', async () => {
    const dataset = await db.db.insertInto('datasets').values({ name: 'race' }).returning('id').executeTakeFirstOrThrow();
    const versionId = (await db.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'c', format: 'minibench', source_path: '-', item_count: 3 })
      .returning('id').executeTakeFirstOrThrow()).id;
    const runs = new RunRepository(db.db);
    const variantId = randomUUID();
    const keys = ['reused-first', 'paid-first', 'at-once'].map((tag) => Buffer.from(tag).toString('hex').padEnd(64, '0'));
    const runId = await runs.createRun({
      sweep: { name: 'race', source: '-', config: {}, configHash: 'race' }, datasetVersionId: versionId, priority: 'interactive',
      itemCount: 3, stageJobs: 3, reusedStages: 0, simulated: true,
      variants: [{ id: variantId, variantKey: 'race', label: 'race', pipeline: 'test', model: 't-mid', sampleIndex: 0, params: {} }],
      stages: keys.map((stageKey, i) => ({ variantId, itemId: `i${i}`, stage: 'sql', stageKey, role: 'sql', params: {}, inputs: {}, isFinal: true })),
    });
    const payload = (stageKey: string, i: number): StageJobPayload => ({
      stageKey, stage: 'sql', datasetVersionId: versionId, itemId: `i${i}`, params: {}, inputs: {}, runId, variantId, final: true,
    });
    const [a, b] = [worker(), worker()];
    const ctx = undefined as unknown as StageContext;

    const paid: number[] = [];
    for (const [i, stageKey] of keys.entries()) {
      const request = claimRequest('t-mid', questions[i]!);
      const answers = await Promise.all([a.llm.complete(request), b.llm.complete(request)]);
      expect(answers.filter((r) => r.cached)).toHaveLength(1); // one call paid, the other answered from the cache
      const paidIdx = answers.findIndex((r) => !r.cached);
      const [paidRun, reusedRun] = [answers[paidIdx]!, answers[1 - paidIdx]!].map((r) => llmStageRun(askStage, ctx, request, r));
      const [paidBy, reusedBy] = paidIdx === 0 ? [a.runner, b.runner] : [b.runner, a.runner];
      paid.push(answers[paidIdx]!.costUsd);
      const p = payload(stageKey, i);
      if (i === 0) {
        await reusedBy.settle(p, reusedRun!, 'reused');
        await paidBy.settle(p, paidRun!, 'paid');
      } else if (i === 1) {
        await paidBy.settle(p, paidRun!, 'paid');
        await reusedBy.settle(p, reusedRun!, 'reused');
      } else {
        await Promise.all([reusedBy.settle(p, reusedRun!, 'reused'), paidBy.settle(p, paidRun!, 'paid')]);
      }
    }

    const stats = sim.simulator.statsSnapshot()['t-mid']!;
    expect(stats.ok).toBe(3);
    const stored = await db.db.selectFrom('stage_results').select(['stage_key', 'cost_usd', 'reused']).where('stage_key', 'in', keys).execute();
    const byKey = new Map(stored.map((r) => [r.stage_key, r]));
    keys.forEach((k, i) => {
      expect(paid[i]).toBeGreaterThan(0);
      expect(byKey.get(k)).toEqual({ stage_key: k, cost_usd: paid[i], reused: false });
    });
    const bill = costUsd(claimCatalog().models['t-mid']!.pricing, { inputTokens: stats.inputTokens, cachedInputTokens: stats.cachedInputTokens, outputTokens: stats.outputTokens });
    const spend = await new ReportRepository(db.db).spend(runId);
    expect(spend.llmCalls).toBe(3);
    expect(spend.costUsd).toBeCloseTo(bill, 9);
    expect(Number(spend.inputTokens)).toBe(stats.inputTokens);
    expect(Number(spend.outputTokens)).toBe(stats.outputTokens);
    expect((await new ReportRepository(db.db).runProgress(runId)).costUsd).toBeCloseTo(bill, 9); // the API's cost so far
  });

  it("charges the run for its own call whose worker died before storing the stage, and not for another stage's answer", async () => {
    const runs = new RunRepository(db.db);
    const dataset = await db.db.insertInto('datasets').values({ name: 'crash' }).returning('id').executeTakeFirstOrThrow();
    const version = await db.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'c2', format: 'minibench', source_path: '-', item_count: 2 })
      .returning('id').executeTakeFirstOrThrow();
    const variantId = randomUUID();
    const [retried, sharing] = ['retried', 'sharing'].map((tag) => Buffer.from(tag).toString('hex').padEnd(64, '0'));
    const runId = await runs.createRun({
      sweep: { name: 'crash', source: '-', config: {}, configHash: 'crash' }, datasetVersionId: version.id, priority: 'interactive',
      itemCount: 2, stageJobs: 2, reusedStages: 0, simulated: true,
      variants: [{ id: variantId, variantKey: 'crash', label: 'crash', pipeline: 'test', model: 't-mid', sampleIndex: 0, params: {} }],
      stages: [retried, sharing].map((stageKey, i) => ({ variantId, itemId: `i${i}`, stage: 'sql', stageKey, role: 'sql', params: {}, inputs: {}, isFinal: true })),
    });
    const before = sim.simulator.statsSnapshot()['t-mid']!;
    const request = claimRequest('t-mid', questions[7]!);
    const attributed = (stageKey: string) => ({ ...request, attribution: { runId, variantId, stage: 'sql', stageKey } });
    const payload = (stageKey: string, i: number): StageJobPayload => ({
      stageKey, stage: 'sql', datasetVersionId: version.id, itemId: `i${i}`, params: {}, inputs: {}, runId, variantId, final: true,
    });
    const ctx = undefined as unknown as StageContext;

    // The first attempt pays and its worker dies before storing the stage; the retry finds the answer in the cache.
    const paid = await worker().llm.complete(attributed(retried));
    const { llm, runner } = worker();
    const retry = await llm.complete(attributed(retried));
    expect(retry).toMatchObject({ cached: true, costUsd: 0, answerCostUsd: paid.costUsd });
    await runner.settle(payload(retried, 0), llmStageRun(askStage, ctx, attributed(retried), retry), 'retry');
    // Another stage of the run asking the same thing takes the answer the first one paid for.
    const shared = await llm.complete(attributed(sharing));
    await runner.settle(payload(sharing, 1), llmStageRun(askStage, ctx, attributed(sharing), shared), 'sharing');

    const after = sim.simulator.statsSnapshot()['t-mid']!;
    expect(after.ok - before.ok).toBe(1);
    const stored = await db.db.selectFrom('stage_results').select(['stage_key', 'cost_usd', 'reused']).where('stage_key', 'in', [retried, sharing]).orderBy('stage_key').execute();
    expect(stored).toEqual([
      { stage_key: retried, cost_usd: paid.costUsd, reused: false },
      { stage_key: sharing, cost_usd: paid.costUsd, reused: true },
    ].sort((x, y) => (x.stage_key < y.stage_key ? -1 : 1)));
    const bill = costUsd(claimCatalog().models['t-mid']!.pricing, {
      inputTokens: after.inputTokens - before.inputTokens, cachedInputTokens: after.cachedInputTokens - before.cachedInputTokens, outputTokens: after.outputTokens - before.outputTokens,
    });
    const spend = await new ReportRepository(db.db).spend(runId);
    expect(spend.llmCalls).toBe(1);
    expect(spend.costUsd).toBeCloseTo(bill, 9);
    expect((await new ReportRepository(db.db).runProgress(runId)).costUsd).toBeCloseTo(bill, 9);
    // The Prometheus cost per stage is what every call stored so far paid: the simulator's whole bill.
    const billed = costUsd(claimCatalog().models['t-mid']!.pricing, { inputTokens: after.inputTokens, cachedInputTokens: after.cachedInputTokens, outputTokens: after.outputTokens });
    expect((await new ApiMetricsRepository(db.db).stageTotals(60)).find((t) => t.stage === 'sql')!.costUsd).toBeCloseTo(billed, 9);
  });

  it('records an answer taken from the cache at what its call cost, marked reused, and charges the run nothing for it', async () => {
    const { llm } = worker();
    const request = claimRequest('t-mid', questions[5]!);
    const first = await llm.complete(request);
    const again = await worker().llm.complete(request);
    expect(again).toMatchObject({ cached: true, costUsd: 0, answerCostUsd: first.costUsd });
    expect(llmStageRun(askStage, undefined as unknown as StageContext, request, again)).toMatchObject({ costUsd: first.costUsd, reused: true });
  });
});
