import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { LlmClient, llmBudgetPrefix, ModelPauses, parseModelCatalog, RedisRateBudget } from '@sqlsweep/llm';
import { parseSimConfig, startLlmSimulator, type LlmSimulator, type LlmSimulatorHandle } from '@sqlsweep/llm-sim';
import { BIRD_SAMPLE, sqlPrompt } from '@sqlsweep/llm-sim/src/testing/sim-fixtures';
import { QueueClient } from '@sqlsweep/queue';
import {
  createRunUsingModel, createTestDatabase, runCli, type TestDatabase, testQueuePrefix, testRedisUrl, waitFor,
} from '@sqlsweep/testing';
import { StageRunner, type StageRunnerDeps } from '@sqlsweep/worker';

const redisUrl = testRedisUrl();

/**
 * A model whose provider says its quota is spent is paused, not failed: its jobs wait (no attempt spent, no request
 * sent while paused), the pause is listed with its reason, and lifting it lets the same job finish.
 */
describe('a quota pause: jobs wait, visible, liftable', () => {
  const prefix = `test-pause-${randomUUID()}`;
  const simConfig = parseSimConfig({ models: { 't-pay': { accuracy: 1, quotaExhausted: true } } }, 'pause');
  let sim: LlmSimulatorHandle & { simulator: LlmSimulator };
  let redis: Redis;
  let queueClient: QueueClient;
  beforeAll(async () => {
    sim = await startLlmSimulator({ datasetDirs: [BIRD_SAMPLE], config: simConfig });
    redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    queueClient = new QueueClient(redisUrl, prefix);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await queueClient.close();
    await sim?.close();
  });

  it('moves the job to delayed while the model is paused and finishes it once resumed', async () => {
    const catalog = parseModelCatalog({
      providers: { sim: { kind: 'openai-compatible', baseUrlEnv: 'SIM_URL', apiKeyEnv: 'SIM_KEY', simulated: true, timeoutMs: 10_000 } },
      models: { 't-pay': { provider: 'sim', pricing: { inputPerMTok: 1, cachedInputPerMTok: 1, outputPerMTok: 1 }, contextWindow: 128_000, limits: { rpm: 1000, inputTpm: 1e7, outputTpm: 1e7, concurrency: 8 } } },
    }, 'pause');
    const budget = new RedisRateBudget({ redis, keyPrefix: llmBudgetPrefix(prefix) });
    const llm = new LlmClient({ catalog, env: { SIM_URL: sim.url, SIM_KEY: 'k' }, budget });
    const logged: string[] = [];
    const unused = undefined as never;
    const runner = new StageRunner({
      queue: queueClient, log: (_o, msg) => logged.push(msg), pausedRecheckMs: 300, llm,
      advancer: unused, stages: unused, retrieval: unused, datasets: unused, sandbox: unused, replicas: unused, sqlDeadlineMs: 1_000,
    } as StageRunnerDeps);
    const question = (JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as Array<{ question: string }>)[0]!.question;
    const connection = { url: redisUrl, maxRetriesPerRequest: null };
    const queue = new Queue('pause', { connection, prefix });
    // What the worker host does with a stage job's LLM error: StageRunner.translate decides.
    const worker = new Worker('pause', async (job: Job, token?: string) => {
      try {
        return (await llm.complete({ model: 't-pay', messages: sqlPrompt(question), temperature: 0, sampleIndex: 0, templateVersion: 'v1' })).output;
      } catch (e) {
        throw await runner.translate(e, job, token);
      }
    }, { connection, prefix, concurrency: 1 });
    const pauses = new ModelPauses(redis, llmBudgetPrefix(prefix));
    const requests = () => sim.simulator.statsSnapshot()['t-pay']?.requests ?? 0;
    try {
      const job = await queue.add('call', {}, { jobId: 'pay', attempts: 3 });
      const listed = await waitFor('the pause', async () => ((await pauses.list()).length ? pauses.list() : undefined), 10_000, 50);
      expect(listed).toEqual([{ model: 't-pay', reason: expect.stringMatching(/^quota exhausted at provider sim: .*exceeded your current quota/) }]);
      await new Promise((r) => setTimeout(r, 1_000)); // three rechecks: each finds the model still paused
      expect(await job.getState()).toBe('delayed');
      expect((await queue.getJob('pay'))!.attemptsMade).toBe(0);
      expect(await queue.getFailedCount()).toBe(0);
      expect(requests()).toBe(1); // the budget holds the calls back while paused: one refused request in all
      expect(logged.filter((m) => m === 'waiting: model paused').length).toBeGreaterThanOrEqual(2);

      simConfig.models['t-pay']!.quotaExhausted = false; // the account is topped up
      expect(await pauses.resume('t-pay')).toMatch(/quota exhausted/);
      await waitFor('the job to finish', async () => ((await job.getState()) === 'completed' ? true : undefined), 10_000, 50);
      expect(requests()).toBe(2);
      expect(await pauses.list()).toEqual([]);
    } finally {
      await worker.close(true);
      await queue.close();
      await llm.close(0);
    }
  });
});

/** What a user sees of a pause in the CLI, and how they lift it. */
describe('sqlsweep status and sqlsweep models with a paused model', () => {
  let db: TestDatabase;
  let redis: Redis;
  const prefix = testQueuePrefix();
  beforeAll(async () => {
    db = await createTestDatabase();
    redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await db?.drop();
  });

  it('names the paused model and the reason, and lifts the pause', async () => {
    const runId = await createRunUsingModel(db.db, 'gpt-paid');
    const reason = 'quota exhausted at provider openai: 429 You exceeded your current quota, please check your plan and billing details.';
    await new RedisRateBudget({ redis, keyPrefix: llmBudgetPrefix(prefix) }).pause('gpt-paid', reason);
    const env = { DATABASE_URL: db.url, REDIS_URL: redisUrl, SQLSWEEP_QUEUE_PREFIX: prefix };
    const line = `model gpt-paid is paused: ${reason}. Its jobs wait; once the account has quota again: sqlsweep models resume gpt-paid`;

    const status = await runCli(['status', runId], env, 60_000);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(line);
    const listed = await runCli(['models', 'paused'], env, 60_000);
    expect(listed.stdout.trim()).toBe(line);

    const resumed = await runCli(['models', 'resume', 'gpt-paid'], env, 60_000);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`model gpt-paid resumed (it was paused: ${reason})`);
    expect(await redis.keys(`${prefix}*paused`)).toEqual([]);
    const again = await runCli(['models', 'resume', 'gpt-paid'], env, 60_000);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('sqlsweep: model gpt-paid is not paused (paused: none)');
    expect((await runCli(['status', runId], env, 60_000)).stdout).not.toContain('paused');
  });
});
