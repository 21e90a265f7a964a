import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RunRepository } from '@sqlsweep/db';
import { llmBudgetPrefix, RedisRateBudget } from '@sqlsweep/llm';
// nx-ignore-next-line
import { createTestDatabase, removeQueuePrefixKeys, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';
import { startTestApi, type TestApi } from './testing/test-api';

const token = 'models-token-0123456789';
const auth = { authorization: `Bearer ${token}` };

/** Quota pauses through the API: listed with their reasons (all, or a run's), lifted by a bearer-guarded POST. */
describe('orchestrator API: paused models', () => {
  let t: TestDatabase;
  let api: TestApi;
  let url: string;
  let redis: Redis;
  let runId: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    api = await startTestApi(t, { SQLSWEEP_API_TOKEN: token });
    ({ url } = api);
    const dataset = await t.db.insertInto('datasets').values({ name: 'pauses' }).returning('id').executeTakeFirstOrThrow();
    const versionId = (await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'c', format: 'minibench', source_path: '-', item_count: 1 })
      .returning('id').executeTakeFirstOrThrow()).id;
    runId = await new RunRepository(t.db).createRun({
      sweep: { name: 'pauses', source: '-', config: {}, configHash: 'pauses' }, datasetVersionId: versionId, priority: 'interactive',
      itemCount: 1, stageJobs: 1, reusedStages: 0, simulated: true,
      variants: [{ id: randomUUID(), variantKey: 'v', label: 'v', pipeline: 'zero-shot', model: 'gpt-paid', sampleIndex: 0, params: {} }],
      stages: [],
    });
    // What a worker's LlmClient does when the provider says the quota is spent.
    const budget = new RedisRateBudget({ redis, keyPrefix: llmBudgetPrefix(api.queuePrefix) });
    await budget.pause('gpt-paid', 'quota exhausted at provider openai: insufficient_quota');
    await budget.pause('claude-other', 'quota exhausted at provider anthropic: Your credit balance is too low');
  });
  afterAll(async () => {
    await api?.app.close();
    if (api) await removeQueuePrefixKeys(testRedisUrl(), api.queuePrefix);
    redis?.disconnect();
    await t?.drop();
  });

  const get = (path: string, headers: Record<string, string> = auth) => fetch(`${url}${path}`, { headers });
  const post = (path: string, headers: Record<string, string> = auth) => fetch(`${url}${path}`, { method: 'POST', headers });

  it('names the paused models and why, all of them or those a run uses', async () => {
    expect((await get('/api/models/paused', {})).status).toBe(401); // reads are closed by default
    expect(await (await get('/api/models/paused')).json()).toEqual([
      { model: 'claude-other', reason: 'quota exhausted at provider anthropic: Your credit balance is too low' },
      { model: 'gpt-paid', reason: 'quota exhausted at provider openai: insufficient_quota' },
    ]);
    expect(await (await get(`/api/models/paused?runId=${runId}`)).json()).toEqual([{ model: 'gpt-paid', reason: 'quota exhausted at provider openai: insufficient_quota' }]);
    const bad = await get('/api/models/paused?runId=nope');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', field: 'query.runId' });
  });

  it('lifts a pause with a bearer-guarded POST; a model that is not paused is a 404', async () => {
    expect((await post('/api/models/gpt-paid/resume', {})).status).toBe(401);
    const lifted = await post('/api/models/gpt-paid/resume');
    expect(lifted.status).toBe(200);
    expect(await lifted.json()).toEqual({ model: 'gpt-paid', resumed: true, pausedFor: 'quota exhausted at provider openai: insufficient_quota' });
    expect(await (await get(`/api/models/paused?runId=${runId}`)).json()).toEqual([]);
    expect((await post('/api/models/gpt-paid/resume')).status).toBe(404);
    expect(((await (await get('/api/models/paused')).json()) as Array<{ model: string }>).map((p) => p.model)).toEqual(['claude-other']);
  });
});
