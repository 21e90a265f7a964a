import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { DatasetRepository } from '@sqlsweep/db';
import { registerDataset } from '@sqlsweep/orchestration';
// nx-ignore-next-line
import { createTestDatabase, TempDirs, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { openApiDocument } from './openapi';
import { startTestApi } from './testing/test-api';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

const token = 'openapi-codes-token-0123456789';
const config = `name: openapi-codes
dataset: minibench
split: dev
items: { limit: 3 }
models: [sim-strong, sim-weak]
pipelines:
  - pipeline: zero-shot
    grid:
      temperature: [0]
`;

interface Operation { responses: Record<string, unknown> }
type Paths = Record<string, Record<string, Operation>>;

/**
 * Every route of the OpenAPI document, called for real: its success, a request without the token, a path naming
 * nothing, a path that is not an id, a short run id. Each answer's status must be one the document lists for that
 * operation, and the success must be the documented success code (cancel was documented 200 and answered 201).
 */
describe('the OpenAPI document lists the status codes each route answers', () => {
  let t: TestDatabase;
  let app: INestApplication;
  let url: string;
  const values: Record<string, string> = { name: 'nightly-codes', model: 'sim-strong' };
  const auth = { authorization: `Bearer ${token}` };
  const paths = openApiDocument().paths as Paths;

  beforeAll(async () => {
    t = await createTestDatabase();
    await registerDataset(new DatasetRepository(t.db), {
      name: 'minibench', format: 'minibench', path: 'data/minibench/dist', dataDir: temp.make('sqlsweep-openapi-'),
    });
    const schedules = join(temp.make('sqlsweep-openapi-schedules-'), 'schedules.yaml');
    writeFileSync(schedules, `schedules:\n  ${values.name}:\n    cron: "0 3 1 1 *"\n    timezone: UTC\n    sweep: configs/sweeps/demo.yaml\n`);
    ({ app, url } = await startTestApi(t, { SQLSWEEP_QUEUE_PREFIX: testQueuePrefix(), SQLSWEEP_API_TOKEN: token, SQLSWEEP_SCHEDULES_FILE: schedules }));
    const created = await fetch(`${url}/api/runs`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ config }) });
    expect(created.status).toBe(201);
    values.runId = ((await created.json()) as { runId: string }).runId;
    const variants = (await (await fetch(`${url}/api/runs/${values.runId}/variants`, { headers: auth })).json()) as Array<{ id: string }>;
    values.variantId = variants[0].id;
    const run = await t.db.selectFrom('runs').select(['sweep_id', 'dataset_version_id']).where('id', '=', values.runId).executeTakeFirstOrThrow();
    values.sweepId = run.sweep_id;
    values.versionId = String(run.dataset_version_id);
    const stage = await t.db.selectFrom('run_stages').select('item_id').where('run_id', '=', values.runId).executeTakeFirstOrThrow();
    values.itemId = stage.item_id;
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const queries: Record<string, () => Record<string, string>> = {
    '/api/compare': () => ({ runA: values.runId, runB: values.runId }),
    '/api/runs/{runId}/param-sweep': () => ({ knob: 'model' }),
    '/api/runs/{runId}/export': () => ({ format: 'csv' }),
  };
  const bodies: Record<string, () => unknown> = {
    'post /api/runs': () => ({ config, dryRun: true }),
    'post /api/runs/{runId}/rerun': () => ({ dryRun: true }),
  };
  /** Routes whose valid request still answers an error: nothing to resume, no check of a run that never finished, no paired items to compare. */
  const expectedFailure: Record<string, number> = {
    'get /api/compare': 400,
    'post /api/models/{model}/resume': 404,
    'get /api/schedules/{name}/runs/{runId}/check': 404,
  };
  const fill = (path: string, over: Record<string, string> = {}) => path.replace(/\{(\w+)\}/g, (_m, k: string) => encodeURIComponent(over[k] ?? values[k]));
  const call = (method: string, path: string, template: string, withAuth = true) => {
    const qs = new URLSearchParams(queries[template]?.() ?? {}).toString();
    const body = bodies[`${method} ${template}`]?.();
    return fetch(`${url}${path}${qs ? `?${qs}` : ''}`, {
      method: method.toUpperCase(),
      headers: { ...(withAuth ? auth : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  };
  // State changes last, cancel the very last (resuming a cancelled run is a documented 400).
  const operations = Object.entries(paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
    .sort((a, b) => Number(a.method === 'post') - Number(b.method === 'post') || Number(a.path.endsWith('/cancel')) - Number(b.path.endsWith('/cancel')));

  it('answers every documented operation with a documented code, the success with the documented success', async () => {
    const seen: string[] = [];
    for (const { path, method, op } of operations) {
      const documented = Object.keys(op.responses).map(Number);
      const success = documented.find((c) => c < 300)!;
      const key = `${method} ${path}`;
      const res = await call(method, fill(path), path);
      const body = await res.text();
      expect({ key, status: res.status, body: res.status >= 300 ? body : '' }).toEqual({ key, status: expectedFailure[key] ?? success, body: expect.any(String) });
      // A 404 from a handler, not Nest's answer for a route it does not have.
      expect({ key, body }).not.toEqual({ key, body: expect.stringMatching(/Cannot (GET|POST)/) });
      seen.push(key);
    }
    expect(seen).toContain('post /api/runs/{runId}/cancel');
  });

  it('answers 401 without the token where the document says so, and nothing undocumented on unknown or malformed ids', async () => {
    for (const { path, method, op } of operations) {
      const documented = Object.keys(op.responses).map(Number);
      const key = `${method} ${path}`;
      const anonymous = await call(method, fill(path), path, false);
      expect({ key, status: anonymous.status, documented: documented.includes(anonymous.status) }).toEqual({ key, status: documented.includes(401) ? 401 : expect.any(Number), documented: true });
      if (!path.includes('{')) continue;
      const unknown = await call(method, fill(path, { runId: '00000000-0000-4000-8000-000000000000', variantId: '00000000-0000-4000-8000-000000000000', itemId: 'no-such-item', sweepId: '00000000-0000-4000-8000-000000000000', versionId: '99999', name: 'no-such-schedule', model: 'no-such-model' }), path);
      expect({ key, status: unknown.status }).toEqual({ key, status: 404 });
      const malformed = await call(method, fill(path, { runId: 'not-an-id', variantId: 'not-an-id', sweepId: 'not-an-id', versionId: 'abc' }), path);
      expect({ key, status: malformed.status, documented: documented.includes(malformed.status) }).toEqual({ key, status: malformed.status, documented: true });
    }
  });

  it('resolves a short run id in every run route, and says 404 for a prefix no run has', async () => {
    for (const { path, method } of operations.filter((o) => o.method === 'get' && o.path.startsWith('/api/runs/{runId}'))) {
      const res = await call(method, fill(path, { runId: values.runId.slice(0, 8), variantId: values.variantId.slice(0, 8) }), path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    const absent = values.runId.startsWith('f') ? '0000' : 'ffff';
    expect((await fetch(`${url}/api/runs/${absent}abcd`, { headers: auth })).status).toBe(404);
  });

  it('answers 409 naming both runs when a short id is ambiguous, and resolves it with more digits', async () => {
    // A copy of the run under an id sharing its first 8 digits (and nothing after).
    const head = values.runId.slice(0, 8);
    const twin = `${head}-0000-4000-8000-${values.runId.endsWith('000000000000') ? '111111111111' : '000000000000'}`;
    const original = await t.db.selectFrom('runs').selectAll().where('id', '=', values.runId).executeTakeFirstOrThrow();
    await t.db.insertInto('runs').values({ ...original, id: twin }).execute();
    const res = await fetch(`${url}/api/runs/${head}`, { headers: auth });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toMatch(new RegExp(`ambiguous.*(${values.runId}.*${twin}|${twin}.*${values.runId})`));
    const longer = await fetch(`${url}/api/runs/${values.runId.slice(0, 23)}`, { headers: auth });
    expect(longer.status).toBe(twin.slice(0, 23) === values.runId.slice(0, 23) ? 409 : 200);
  });
});
