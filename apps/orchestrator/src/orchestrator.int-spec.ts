import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { apiRoutes } from '@sqlsweep/contracts';
import { DatasetRepository } from '@sqlsweep/db';
import { registerDataset } from '@sqlsweep/orchestration';
import { Queue, queueKeyPrefix } from '@sqlsweep/queue';
// nx-ignore-next-line
import { createTestDatabase, TempDirs, testQueuePrefix, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';
import { startTestApi } from './testing/test-api';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

const token = 'test-token-0123456789';
const demoConfig = `name: api-demo
dataset: minibench
split: dev
items: { limit: 6 }
models: [sim-strong, sim-weak]
pipelines:
  - pipeline: zero-shot
    grid:
      temperature: [0]
`;

const start = (t: TestDatabase, prefix: string, extra: Record<string, string>, dashboardDir?: string) =>
  startTestApi(t, { SQLSWEEP_QUEUE_PREFIX: prefix, SQLSWEEP_API_TOKEN: token, ...extra }, { dashboardDir });

/** Waiting (incl. prioritized) stage jobs under a prefix, read straight from Redis. */
async function waitingStageJobs(prefix: string): Promise<number> {
  let n = 0;
  for (const name of ['stage-llm', 'stage-sql', 'stage-retrieval']) {
    const q = new Queue(name, { connection: { url: testRedisUrl() }, prefix: queueKeyPrefix(prefix, name) });
    const c = await q.getJobCounts('waiting', 'prioritized', 'delayed');
    n += c.waiting + c.prioritized + c.delayed;
    await q.close();
  }
  return n;
}

describe('orchestrator HTTP API (no workers: runs stay queued)', () => {
  let t: TestDatabase;
  let app: INestApplication;
  let url: string;
  const prefix = testQueuePrefix();
  const dashboardDir = temp.make('dashboard-dist-');
  writeFileSync(join(dashboardDir, 'index.html'), '<!doctype html><title>sqlsweep dashboard</title>');
  writeFileSync(join(dashboardDir, 'app.js'), 'console.log(1)');

  const auth = { authorization: `Bearer ${token}` };
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });
  // Response bodies are checked field by field below, so they are read loosely typed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const getJson = async (path: string): Promise<any> => {
    const res = await get(path);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.json();
  };
  const post = (path: string, body?: unknown, withAuth = true) => fetch(`${url}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(withAuth ? auth : {}) }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const expect400 = async (res: Response, field: string, reason: RegExp) => {
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', field, reason: expect.stringMatching(reason) });
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    await registerDataset(new DatasetRepository(t.db), {
      name: 'minibench', format: 'minibench', path: 'data/minibench/dist', dataDir: temp.make('sqlsweep-api-'),
    });
    // Reads opened, so the checks below read without the token; the default read policy is in api-safety.int-spec.ts.
    ({ app, url } = await start(t, prefix, { SQLSWEEP_OPEN_READS: '1' }, dashboardDir));
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  it('answers health under /api and an empty run list; the old root routes are gone', async () => {
    expect(await getJson('/api/health')).toEqual({ status: 'ok', queues: expect.any(Object) });
    expect(await getJson('/api/runs')).toEqual([]);
    expect((await get('/runs', { accept: 'application/json' })).status).toBe(404);
  });

  it('lists dataset versions and pages their items', async () => {
    const versions = await getJson('/api/datasets');
    expect(versions).toEqual([expect.objectContaining({ datasetName: 'minibench', format: 'minibench', itemCount: expect.any(Number), databases: expect.any(Number) })]);
    const dev = await t.db.selectFrom('dataset_items').select(['item_id', 'question']).where('split', '=', 'dev').orderBy('position').execute();
    const page = await getJson(`/api/datasets/${versions[0].id}/items?limit=5&offset=2`);
    expect(page.total).toBe(dev.length);
    expect(page.items.map((i: { itemId: string }) => i.itemId)).toEqual(dev.slice(2, 7).map((d) => d.item_id));
    expect((await get('/api/datasets/99999/items')).status).toBe(404);
    await expect400(await get('/api/datasets/abc/items'), 'path.versionId', /positive integer/);
    await expect400(await get(`/api/datasets/${versions[0].id}/items?limit=0`), 'query.limit', /./);
    await expect400(await get(`/api/datasets/${versions[0].id}/items?split=test`), 'query.split', /./);
  });

  it('refuses bad requests with 400 naming the field and the reason, writing nothing', async () => {
    await expect400(await post('/api/runs', {}), 'body.config', /YAML string/);
    await expect400(await post('/api/runs', { config: demoConfig, extra: 1 }), 'body.extra', /unrecognized|Unrecognized/);
    await expect400(await post('/api/runs', { config: demoConfig, dryRun: 'yes' }), 'body.dryRun', /boolean/);
    const badConfig = await post('/api/runs', { source: 'sweep.yaml', config: 'name: x\ndataset: nowhere\nmodels: [sim-strong]\npipelines:\n  - pipeline: zero-shot\n' });
    expect(badConfig.status).toBe(400);
    expect(await badConfig.json()).toEqual({ error: 'invalid_config', source: 'sweep.yaml', path: 'dataset', reason: expect.stringMatching(/no registered dataset "nowhere"/) });
    await expect400(await get('/api/runs?status=finished'), 'query.status', /./);
    await expect400(await get('/api/runs?limit=-1'), 'query.limit', /./);
    await expect400(await get('/api/runs?color=red'), 'query.color', /nrecognized/);
    await expect400(await get('/api/runs/not-a-uuid'), 'path.runId', /UUID/);
    await expect400(await get('/api/sweeps/nope'), 'path.sweepId', /UUID/);
    await expect400(await get('/api/compare?runA=00000000-0000-4000-8000-000000000000'), 'query.runB', /./);
    expect(await getJson('/api/runs')).toEqual([]);
    expect((await get('/api/runs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get('/api/sweeps/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await post('/api/runs/00000000-0000-4000-8000-000000000000/cancel')).status).toBe(404);
  });

  it('guards state changes with the bearer token; reads are open by config', async () => {
    expect((await post('/api/runs', { config: demoConfig }, false)).status).toBe(401);
    const wrong = await fetch(`${url}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-token-0123456789' }, body: JSON.stringify({ config: demoConfig }) });
    expect(wrong.status).toBe(401);
    expect((await get('/api/runs')).status).toBe(200);
    expect((await get('/queues')).status).toBe(200);
    expect((await fetch(`${url}/queues/api/queues/stage-llm/clean/completed`, { method: 'PUT' })).status).toBe(401);
    expect(await waitingStageJobs(prefix)).toBe(0);

    const closed = await start(t, testQueuePrefix(), { SQLSWEEP_OPEN_READS: 'false' });
    try {
      for (const path of ['/api/runs', '/api/datasets', '/queues', '/api/compare?runA=x']) {
        expect({ path, status: (await fetch(`${closed.url}${path}`)).status }).toEqual({ path, status: 401 });
      }
      expect((await fetch(`${closed.url}/api/runs`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${closed.url}/metrics`)).status).toBe(200);
      expect((await fetch(`${closed.url}/queues`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${closed.url}/api/openapi.json`)).status).toBe(200);
    } finally {
      await closed.app.close();
    }
  });

  it('creates a run (dry run first), shows its status, then cancels it and takes its queued jobs off', async () => {
    const dry = await post('/api/runs', { config: demoConfig, source: 'api-demo.yaml', dryRun: true });
    expect(dry.status).toBe(201);
    expect(await dry.json()).toEqual(expect.objectContaining({ dryRun: true, variants: 2, items: 6, simulated: true }));
    expect(await getJson('/api/runs')).toEqual([]);

    const created = await post('/api/runs', { config: demoConfig, source: 'api-demo.yaml' });
    expect(created.status).toBe(201);
    const { runId } = (await created.json()) as { runId: string };
    const queued = await waitingStageJobs(prefix);
    expect(queued).toBeGreaterThan(0);

    const list = await getJson('/api/runs?status=running');
    expect(list).toEqual([expect.objectContaining({ id: runId, sweepName: 'api-demo', status: 'running', itemCount: 6, variantCount: 2, simulated: true })]);
    expect(await getJson('/api/runs?status=done')).toEqual([]);
    const detail = await getJson(`/api/runs/${runId}`);
    expect(detail).toEqual(expect.objectContaining({ itemsDone: 0, itemsPlanned: 12, costSoFarUsd: 0, etaSeconds: null, leaderboard: [] }));
    expect(detail.progress.length).toBeGreaterThan(0);
    expect(detail.progress.every((p: { planned: number; done: number }) => p.planned > 0 && p.done === 0)).toBe(true);

    const variants = await getJson(`/api/runs/${runId}/variants`);
    expect(variants.map((v: { model: string }) => v.model).sort()).toEqual(['sim-strong', 'sim-weak']);
    const sweeps = await getJson('/api/sweeps');
    expect(sweeps).toEqual([expect.objectContaining({ name: 'api-demo', source: 'api-demo.yaml', runIds: [runId] })]);
    expect((await getJson(`/api/sweeps/${sweeps[0].id}`)).config).toEqual(expect.objectContaining({ name: 'api-demo', models: ['sim-strong', 'sim-weak'] }));

    const items = await getJson(`/api/runs/${runId}/items`);
    expect(items).toEqual({ items: [], total: 0, limit: 50, offset: 0 });
    const firstItem = (await t.db.selectFrom('dataset_items').select('item_id').where('split', '=', 'dev').orderBy('position').executeTakeFirstOrThrow()).item_id;
    const drill = await getJson(`/api/runs/${runId}/items/${encodeURIComponent(firstItem)}`);
    expect(drill.variants).toHaveLength(2);
    expect(drill.variants[0].result).toBeNull();
    expect(drill.variants[0].stages.length).toBeGreaterThan(1);
    expect(drill.variants[0].stages.every((s: { status: string }) => s.status === 'pending')).toBe(true);
    const stages = await getJson(`/api/runs/${runId}/variants/${variants[0].id}/items/${encodeURIComponent(firstItem)}/stages`);
    expect(stages.map((s: { stage: string }) => s.stage)).toEqual(drill.variants.find((v: { variantId: string }) => v.variantId === variants[0].id).stages.map((s: { stage: string }) => s.stage));
    const tables = await getJson(`/api/runs/${runId}/variants/${variants[0].id}/items/${encodeURIComponent(firstItem)}/tables`);
    expect(tables.gold).toEqual(expect.objectContaining({ status: 'ok', columns: expect.any(Array), message: null }));
    expect(tables.gold.rows.length).toBe(Math.min(tables.gold.rowCount, tables.rowLimit));
    expect(tables.predicted).toEqual(expect.objectContaining({ status: 'missing', message: 'no result yet' }));
    expect((await get(`/api/runs/${runId}/variants/${variants[0].id}/items/no-such-item/tables`)).status).toBe(404);
    expect((await get(`/api/runs/${runId}/items/no-such-item`)).status).toBe(404);
    expect((await get(`/api/runs/${runId}/variants/${variants[0].id}/items/no-such-item/stages`)).status).toBe(404);

    const csv = await get(`/api/runs/${runId}/export?format=csv`);
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    expect(await csv.text()).toMatch(/^variantId,variantLabel,itemId,dbId,difficulty,correct,category,scorer,errored,parseFailed,reason,predictedSql,goldSql,question,inputTokens,outputTokens,costUsd,latencyMs,simulated\r\n$/);
    await expect400(await get(`/api/runs/${runId}/export?format=spider`), 'query.variantId', /2 variants/);
    await expect400(await get(`/api/runs/${runId}/export?format=xml`), 'query.format', /./);

    const metrics = await (await get('/metrics')).text();
    const waitingLlm = Number(/sqlsweep_queue_jobs\{queue="stage-llm",state="prioritized"\} (\d+)/.exec(metrics)?.[1]) + Number(/sqlsweep_queue_jobs\{queue="stage-llm",state="waiting"\} (\d+)/.exec(metrics)?.[1]);
    const waitingSql = Number(/sqlsweep_queue_jobs\{queue="stage-sql",state="prioritized"\} (\d+)/.exec(metrics)?.[1]) + Number(/sqlsweep_queue_jobs\{queue="stage-sql",state="waiting"\} (\d+)/.exec(metrics)?.[1]);
    expect(waitingLlm + waitingSql).toBe(queued);
    expect(metrics).toMatch(/sqlsweep_runs\{status="running"\} 1/);

    expect((await post(`/api/runs/${runId}/cancel`, undefined, false)).status).toBe(401);
    const cancel = await post(`/api/runs/${runId}/cancel`);
    expect(cancel.status).toBe(201);
    expect(await cancel.json()).toEqual({ runId, status: 'cancelled', removedJobs: queued });
    expect(await waitingStageJobs(prefix)).toBe(0);
    expect((await t.db.selectFrom('runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow()).status).toBe('cancelled');
    expect(await (await post(`/api/runs/${runId}/cancel`)).json()).toEqual({ runId, status: 'cancelled', removedJobs: 0 });
    await expect400(await post(`/api/runs/${runId}/resume`), 'path.runId', /cancelled/);
    expect((await getJson(`/api/runs/${runId}`)).etaSeconds).toBeNull();
  });

  it('keeps the queued jobs that another running run still needs when one is cancelled', async () => {
    const first = (await (await post('/api/runs', { config: demoConfig })).json()) as { runId: string };
    const queued = await waitingStageJobs(prefix);
    const second = (await (await post('/api/runs', { config: demoConfig })).json()) as { runId: string };
    expect(await waitingStageJobs(prefix)).toBe(queued);
    expect(await (await post(`/api/runs/${first.runId}/cancel`)).json()).toEqual({ runId: first.runId, status: 'cancelled', removedJobs: 0 });
    expect(await waitingStageJobs(prefix)).toBe(queued);
    expect((await post(`/api/runs/${second.runId}/resume`)).status).toBe(201);
    expect(await (await post(`/api/runs/${second.runId}/cancel`)).json()).toEqual({ runId: second.runId, status: 'cancelled', removedJobs: queued });
  });

  it('compares only runs whose items pair: same dataset, some scored item in common', async () => {
    await registerDataset(new DatasetRepository(t.db), {
      name: 'minibench-copy', format: 'minibench', path: 'data/minibench/dist', dataDir: temp.make('sqlsweep-api-'),
    });
    const [done1, done2] = (await getJson('/api/runs?status=cancelled')) as Array<{ id: string }>;
    const copy = (await (await post('/api/runs', { config: demoConfig.replace('dataset: minibench', 'dataset: minibench-copy') })).json()) as { runId: string };
    try {
      await expect400(await get(`/api/compare?runA=${done1.id}&runB=${done2.id}`), 'query.variantA', /2 variants: name one/);
      const [v] = (await getJson(`/api/runs/${done1.id}/variants`)) as Array<{ id: string }>;
      await expect400(await get(`/api/compare?runA=${done1.id}&variantA=${v.id}&runB=${copy.runId}`), 'query.runB', /minibench-copy.*items do not pair/);
      await expect400(await get(`/api/compare?runA=${done1.id}&variantA=${v.id}&runB=${done2.id}`), 'query', /no scored item in common/);
      await expect400(await get(`/api/compare?runA=${done1.id}&variantA=${copy.runId}&runB=${done2.id}`), 'query.variantA', /not part of the run/);
      await expect400(await get(`/api/compare?runA=${done1.id}&variantA=${v.id}&runB=${done2.id}&resamples=5`), 'query.resamples', /./);

      // One item scored in both runs, by different scorers: the comparison says so instead of a bare delta.
      const [v2] = (await getJson(`/api/runs/${done2.id}/variants`)) as Array<{ id: string }>;
      const item = (await t.db.selectFrom('dataset_items').select('item_id').orderBy('position').executeTakeFirstOrThrow()).item_id;
      const result = (runId: string, variantId: string, scorer: string) => ({
        run_id: runId, variant_id: variantId, item_id: item, final_stage_key: `k-${runId}`, correct: true, errored: false, reason: 'same result',
        predicted_sql: 'SELECT 1', difficulty: 'simple', input_tokens: 0, output_tokens: 0, cost_usd: 0, latency_ms: 0, simulated: true, scorer,
      });
      await t.db.insertInto('item_results').values([result(done1.id, v.id, 'bird-ex@2'), result(done2.id, v2.id, 'bird-ex-bag@1')]).execute();
      const mixed = await getJson(`/api/compare?runA=${done1.id}&variantA=${v.id}&runB=${done2.id}&variantB=${v2.id}&resamples=100`);
      expect([mixed.a.scorer, mixed.b.scorer]).toEqual(['bird-ex@2', 'bird-ex-bag@1']);
      expect(mixed.scorerWarning).toMatch(/A was scored by bird-ex@2, B by bird-ex-bag@1: EX under different scorers is not comparable/);
      await t.db.updateTable('item_results').set({ scorer: 'bird-ex@2' }).where('run_id', '=', done2.id).execute();
      expect((await getJson(`/api/compare?runA=${done1.id}&variantA=${v.id}&runB=${done2.id}&variantB=${v2.id}&resamples=100`)).scorerWarning).toBeNull();
    } finally {
      await t.db.deleteFrom('item_results').where('run_id', 'in', [done1.id, done2.id]).execute();
      await post(`/api/runs/${copy.runId}/cancel`);
    }
  });

  it('filters and sorts only through the allow-list', async () => {
    const [run] = await getJson('/api/runs');
    await expect400(await get(`/api/runs/${run.id}/items?sort=${encodeURIComponent('item_id; DROP TABLE runs')}`), 'query.sort', /./);
    await expect400(await get(`/api/runs/${run.id}/items?order=sideways`), 'query.order', /./);
    await expect400(await get(`/api/runs/${run.id}/items?correct=maybe`), 'query.correct', /./);
    await expect400(await get(`/api/runs/${run.id}/items?variantId=x`), 'query.variantId', /./);
    expect((await getJson(`/api/runs/${run.id}/items?q=${encodeURIComponent("' OR 1=1 --")}&dbId=${encodeURIComponent("x' OR '1'='1")}`)).total).toBe(0);
    await expect400(await get(`/api/runs/${run.id}/param-sweep`), 'query.knob', /./);
    await expect400(await get(`/api/runs/${run.id}/param-sweep?knob=theta`), 'query.knob', /no variant of this run has "theta"/);
  });

  it('serves every route of the contract (a placeholder id may be unknown, but the route exists)', async () => {
    expect(await (await get('/api/no-such-route', auth)).text()).toMatch(/Cannot GET/); // what a missing route looks like
    const ids: Record<string, string> = { runId: '00000000-0000-4000-8000-000000000000', variantId: '00000000-0000-4000-8000-000000000000', sweepId: '00000000-0000-4000-8000-000000000000', versionId: '1', itemId: 'x', name: 'demo-nightly' };
    for (const route of apiRoutes) {
      const path = `/api${route.path.replace(/\{(\w+)\}/g, (_m, k: string) => ids[k])}`;
      const res = route.method === 'get' ? await get(path, auth) : await post(path, {});
      const body = await res.text();
      expect({ path, missing: res.status === 404 && /Cannot (GET|POST)/.test(body) }).toEqual({ path, missing: false });
    }
    expect((await get('/api/schedules')).status).toBe(200);
    expect((await get('/api/alerts')).status).toBe(200);
  });

  it('publishes an OpenAPI document generated from the contracts, listing every route', async () => {
    const doc = await getJson('/api/openapi.json');
    expect(doc.openapi).toBe('3.1.0');
    for (const route of apiRoutes) {
      const op = doc.paths[`/api${route.path}`]?.[route.method];
      expect({ route: route.path, op: op !== undefined }).toEqual({ route: route.path, op: true });
      if (route.query) {
        const names = op.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name).sort();
        expect(names).toEqual(Object.keys(route.query.shape).sort());
      }
    }
    const items = doc.paths['/api/runs/{runId}/items'].get;
    expect(items.parameters.find((p: { name: string }) => p.name === 'sort').schema.enum).toContain('cost_usd');
    expect(items.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ItemResultsPage' });
    expect(doc.components.schemas.ItemResultsPage.properties.items.items).toEqual({ $ref: '#/components/schemas/ItemResult' });
    expect(doc.components.schemas.ItemResult.properties.simulated).toEqual({ type: 'boolean' });
    // The parse-failure verdict beside EX: on each item, counted per leaderboard row, and a filter of the items.
    expect(doc.components.schemas.ItemResult.required).toContain('parseFailed');
    expect(doc.components.schemas.LeaderboardRow.properties.parseFailures).toMatchObject({ type: 'integer' });
    expect(items.parameters.map((p: { name: string }) => p.name)).toContain('parseFailed');
    expect(JSON.stringify(doc)).not.toContain('$defs');
    const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]);
    expect(refs.filter((r) => !(r in doc.components.schemas))).toEqual([]);
  });

  it('serves the dashboard build at / with page routes falling back to index.html', async () => {
    expect(await (await get('/', { accept: 'text/html' })).text()).toContain('sqlsweep dashboard');
    expect(await (await get('/app.js')).text()).toBe('console.log(1)');
    expect(await (await get('/runs/abc/compare', { accept: 'text/html' })).text()).toContain('sqlsweep dashboard');
    const missing = await get('/api/nothing-here', { accept: 'text/html' });
    expect(missing.status).toBe(404);
  });

  it('takes a batch-mode run\'s LLM batches off the queue with its stage jobs when it is cancelled', async () => {
    const { runId } = (await (await post('/api/runs', { config: `${demoConfig}llmMode: batch\n` })).json()) as { runId: string };
    const llm = new Queue('stage-llm', { connection: { url: testRedisUrl() }, prefix: queueKeyPrefix(prefix, 'stage-llm') });
    try {
      const batches = (await llm.getJobs(['waiting', 'prioritized'])).filter((j) => j.name === 'llm.batch' && j.data.runId === runId);
      expect(batches.map((b) => b.data.model).sort()).toEqual(['sim-strong', 'sim-weak']);
      const queued = await waitingStageJobs(prefix);
      expect(await (await post(`/api/runs/${runId}/cancel`)).json()).toEqual({ runId, status: 'cancelled', removedJobs: queued });
      expect(await waitingStageJobs(prefix)).toBe(0);
    } finally {
      await llm.close();
    }
  });
});
