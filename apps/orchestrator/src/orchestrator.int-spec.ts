import type { INestApplication } from '@nestjs/common';
import { appEnvSchemas, parseEnv } from '@sqlsweep/config';
// nx-ignore-next-line
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { createOrchestratorApp } from './app';

describe('orchestrator HTTP app', () => {
  let t: TestDatabase;
  let app: INestApplication;
  let url: string;
  const token = 'test-token-0123456789';

  beforeAll(async () => {
    t = await createTestDatabase();
    const env = parseEnv(appEnvSchemas.orchestrator, {
      DATABASE_URL: t.url, REDIS_URL: process.env.REDIS_URL, SQLSWEEP_QUEUE_PREFIX: testQueuePrefix(), PORT: '0', SQLSWEEP_API_TOKEN: token,
    });
    app = await createOrchestratorApp(env, { SQLSWEEP_LLM_SIM_URL: 'http://127.0.0.1:9' });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const post = (body: unknown, auth = true) => fetch(`${url}/runs`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body),
  });

  it('reports health and an empty run list', async () => {
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(await (await fetch(`${url}/runs`)).json()).toEqual([]);
  });

  it('guards state changes with the bearer token', async () => {
    expect((await post({ config: 'name: x' }, false)).status).toBe(401);
  });

  it('refuses a bad config with 400 naming the path and the reason, writing nothing', async () => {
    const res = await post({ source: 'sweep.yaml', config: 'name: x\ndataset: nowhere\nmodels: [sim-strong]\npipelines:\n  - pipeline: zero-shot\n' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_config', source: 'sweep.yaml', path: 'dataset', reason: expect.stringMatching(/no registered dataset "nowhere"/) });
    expect(await (await fetch(`${url}/runs`)).json()).toEqual([]);
  });

  it('answers 404 for an unknown run and 400 for a malformed id', async () => {
    expect((await fetch(`${url}/runs/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await fetch(`${url}/runs/not-a-uuid`)).status).toBe(400);
  });
});
