import { Redis } from 'ioredis';
import { llmBudgetPrefix, RedisRateBudget } from '@sqlsweep/llm';
import { OrchestratorCore } from '@sqlsweep/orchestration';
import { createRunUsingModel, testRedisUrl, useTestCore } from '@sqlsweep/testing';
import { sayPauses } from './models';

/** The `sqlsweep run` progress names the run's paused models and why, once per change, and says when none is left. */
describe('sqlsweep run progress: paused models', () => {
  const testCore = useTestCore(OrchestratorCore);
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null, lazyConnect: true });
  afterAll(() => redis.disconnect());

  it('says each pause of a model the run uses, once, and when the pauses are lifted', async () => {
    const runId = await createRunUsingModel(testCore.database.db, 'gpt-paid');
    const budget = new RedisRateBudget({ redis, keyPrefix: llmBudgetPrefix(testCore.settings.queuePrefix) });
    const lines: string[] = [];
    const say = (l: string) => lines.push(l);

    const { core } = testCore;
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
