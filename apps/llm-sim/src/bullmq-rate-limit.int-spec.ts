import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { LlmClient, RedisRateBudget, queueDisposition } from '@sqlsweep/llm';
import { testRedisUrl } from '@sqlsweep/testing';
import { BIRD_SAMPLE, TEST_SIM_CONFIG, sqlPrompt, testCatalog } from './testing/sim-fixtures';
import { startSimAndRedis, stopSimAndRedis, type SimAndRedis } from './testing/sim-and-redis';

const redisUrl = testRedisUrl();

describe('a BullMQ worker calling the LLM through the shared budget', () => {
  let sim: SimAndRedis['sim'];
  let redis: SimAndRedis['redis'];
  const prefix = `test-llm-${randomUUID()}`;
  const bird = JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as Array<{ question: string }>;

  beforeAll(async () => {
    ({ sim, redis } = await startSimAndRedis(TEST_SIM_CONFIG));
  });
  afterAll(() => stopSimAndRedis({ sim, redis }, prefix));

  it('moves a job refused with 429 back to waiting, not to failed, and pauses on exhausted quota', async () => {
    const connection = { url: redisUrl, maxRetriesPerRequest: null };
    const queue = new Queue('llm', { connection, prefix });
    // Budget limits above the simulator's: the provider's 429 is what stops the second call.
    const budget = new RedisRateBudget({ redis, keyPrefix: `${prefix}:budget`, maxWaitMs: 100 });
    const client = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url, SIM_KEY: 'k' }, budget });
    const outcomes: string[] = [];
    const processor = (worker: () => Worker) =>
      async (job: Job<{ model: string; question: string }>) => {
        try {
          const res = await client.complete({ model: job.data.model, messages: sqlPrompt(job.data.question), temperature: 0, sampleIndex: 0, templateVersion: 'v1' });
          outcomes.push(`${job.id}:ok`);
          return res.output;
        } catch (err) {
          const d = queueDisposition(err);
          outcomes.push(`${job.id}:${d.action}`);
          if (d.action === 'rate_limit') {
            await worker().rateLimit(d.delayMs);
            throw Worker.RateLimitError();
          }
          if (d.action === 'pause_model' || d.action === 'fail') throw new UnrecoverableError((err as Error).message);
          throw err;
        }
      };
    const worker: Worker = new Worker('llm', processor(() => worker), { connection, prefix, concurrency: 1 });
    // A second queue, so that the first queue's rate limit does not hold the quota job back.
    const quotaQueue = new Queue('llm-quota', { connection, prefix });
    const quotaWorker: Worker = new Worker('llm-quota', processor(() => quotaWorker), { connection, prefix, concurrency: 1 });
    try {
      await queue.add('call', { model: 't-limited', question: bird[0]!.question }, { jobId: 'first', attempts: 3 });
      await queue.add('call', { model: 't-limited', question: bird[1]!.question }, { jobId: 'second', attempts: 3 });
      for (let i = 0; i < 100 && outcomes.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(outcomes).toEqual(['first:ok', 'second:rate_limit']);
      const second = await queue.getJob('second');
      // The outcome is recorded just before the processor throws: let the job leave the active state.
      for (let i = 0; i < 100 && (await second!.getState()) === 'active'; i++) await new Promise((r) => setTimeout(r, 20));
      expect(['waiting', 'prioritized', 'delayed']).toContain(await second!.getState());
      expect(second!.attemptsMade).toBe(0);
      expect(await queue.getFailedCount()).toBe(0);
      // Every process now waits out the Retry-After: the budget refuses t-limited without calling the provider.
      await expect(client.complete({ model: 't-limited', messages: sqlPrompt(bird[3]!.question), temperature: 0, sampleIndex: 0, templateVersion: 'v1' })).rejects.toMatchObject({ code: 'rate_limited' });

      // Quota exhausted: the job fails once, unrecoverably (no retry loop), and the model is paused for everyone.
      await quotaQueue.add('call', { model: 't-broke', question: bird[2]!.question }, { jobId: 'broke', attempts: 3 });
      for (let i = 0; i < 100 && (await quotaQueue.getFailedCount()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
      const broke = await quotaQueue.getJob('broke');
      expect(await broke!.getState()).toBe('failed');
      expect(broke!.attemptsMade).toBe(1);
      expect(await budget.pausedReason('t-broke')).toMatch(/quota exhausted at provider sim/);
      const served = sim.simulator.statsSnapshot();
      await expect(
        client.complete({ model: 't-broke', messages: sqlPrompt(bird[4]!.question), temperature: 0, sampleIndex: 0, templateVersion: 'v1' }),
      ).rejects.toMatchObject({ code: 'quota_exhausted', message: expect.stringContaining('paused') });
      // The paused model is refused locally: the provider sees no further request.
      expect(sim.simulator.statsSnapshot()['t-broke']!.requests).toBe(served['t-broke']!.requests);
    } finally {
      await Promise.all([worker.close(true), quotaWorker.close(true)]);
      await Promise.all([queue.close(), quotaQueue.close()]);
    }
  });
});
