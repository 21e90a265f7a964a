import { Redis } from 'ioredis';
import { llmBudgetPrefix, RedisRateBudget } from '@sqlsweep/llm';
import { OrchestratorCore } from '@sqlsweep/orchestration';
import { createRunUsingModel, createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { sayPauses } from './models';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The `sqlsweep run` progress names the run's paused models and why, once per change, and says when none is left. */
describe('sqlsweep run progress: paused models', () => {
  let db: TestDatabase;
  let redis: Redis;
  let core: OrchestratorCore;
  const prefix = testQueuePrefix();
  beforeAll(async () => {
    db = await createTestDatabase();
    redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    core = new OrchestratorCore({ databaseUrl: db.url, redisUrl, queuePrefix: prefix, modelsFile: 'configs/models.yaml', providerEnv: {} });
  });
  afterAll(async () => {
    await core?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await db?.drop();
  });

  it('says each pause of a model the run uses, once, and when the pauses are lifted', async () => {
    const runId = await createRunUsingModel(db.db, 'gpt-paid');
    const budget = new RedisRateBudget({ redis, keyPrefix: llmBudgetPrefix(prefix) });
    const lines: string[] = [];
    const say = (l: string) => lines.push(l);

    let said = await sayPauses(core, runId, '', say);
    expect(lines).toEqual([]);
    await budget.pause('gpt-paid', 'quota exhausted at provider openai: insufficient_quota');
    await budget.pause('not-in-this-run', 'quota exhausted elsewhere');
    said = await sayPauses(core, runId, said, say);
    said = await sayPauses(core, runId, said, say); // unchanged: not said again
    expect(lines).toEqual(['model gpt-paid is paused: quota exhausted at provider openai: insufficient_quota. Its jobs wait; once the account has quota again: sqlsweep models resume gpt-paid']);
    await core.resumeModel('gpt-paid');
    said = await sayPauses(core, runId, said, say);
    expect(lines.slice(1)).toEqual(['no model of this run is paused any more']);
  });
});
