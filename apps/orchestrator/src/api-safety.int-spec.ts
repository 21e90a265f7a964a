import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatasetRepository } from '@sqlsweep/db';
import { registerDataset } from '@sqlsweep/orchestration';
// nx-ignore-next-line
import { createTestDatabase, TempDirs, type TestDatabase } from '@sqlsweep/testing';
import { MAX_BODY_BYTES } from './app';
import { startTestApi, type TestApi } from './testing/test-api';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

const token = 'safety-token-0123456789';
const auth = { authorization: `Bearer ${token}` };
const config = (pipeline: string) => `name: safety\ndataset: minibench\nsplit: dev\nitems: { limit: 2 }\nmodels: [sim-strong]\npipelines:\n  - ${pipeline}\n`;
const corpus = temp.make('sqlsweep-corpus-');
const postgresText = /postgres|invalid byte sequence|UTF8|0x00|relation|syntax error|violates/i;

const start = (t: TestDatabase, extra: Record<string, string>) => startTestApi(t, { SQLSWEEP_API_TOKEN: token, SQLSWEEP_CORPUS_DIR: corpus, ...extra });

/** Read policy, file knobs confined to the corpus directory, and status codes: what anyone reaching the port can do. */
describe('orchestrator API safety (default settings: reads closed)', () => {
  let t: TestDatabase;
  let closed: TestApi;
  let runId: string;
  let sensitive: string[];
  const outside = temp.make('sqlsweep-outside-');

  const post = (url: string, body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${url}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const stored = async () => Promise.all((['sweeps', 'runs', 'run_stages'] as const).map(async (table) =>
    Number((await t.db.selectFrom(table).select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)));

  beforeAll(async () => {
    writeFileSync(join(corpus, 'notes.txt'), 'Airports have an elevation in feet.\n');
    mkdirSync(join(corpus, 'sub'));
    writeFileSync(join(outside, 'secret.txt'), 'SECRET outside the corpus\n');
    symlinkSync(join(outside, 'secret.txt'), join(corpus, 'sub', 'link-out.txt'));

    t = await createTestDatabase();
    await registerDataset(new DatasetRepository(t.db), { name: 'minibench', format: 'minibench', path: 'data/minibench/dist', dataDir: temp.make('sqlsweep-api-') });
    closed = await start(t, {});
    const created = await post(closed.url, { config: config('pipeline: zero-shot') });
    expect(created.status).toBe(201);
    ({ runId } = (await created.json()) as { runId: string });
    const [variant] = await t.db.selectFrom('variants').select('id').where('run_id', '=', runId).execute();
    const item = (await t.db.selectFrom('run_stages').select('item_id').where('run_id', '=', runId).executeTakeFirstOrThrow()).item_id;
    const version = (await t.db.selectFrom('dataset_versions').select('id').executeTakeFirstOrThrow()).id;
    const i = encodeURIComponent(item);
    sensitive = [
      `/api/runs/${runId}/items`, `/api/runs/${runId}/items/${i}`, `/api/runs/${runId}/variants/${variant.id}/items/${i}/stages`,
      `/api/runs/${runId}/variants/${variant.id}/items/${i}/tables`, `/api/runs/${runId}/export?format=jsonl`, `/api/datasets/${version}/items`,
      `/api/runs`, `/api/runs/${runId}/leaderboard`, '/queues', '/queues/api/queues',
    ];
  });
  afterAll(async () => {
    await closed?.app.close();
    await t?.drop();
  });

  it('answers stage traces, items, gold SQL, exports and /queues 401 without the token and 200 with it', async () => {
    for (const path of sensitive) {
      const without = await fetch(`${closed.url}${path}`);
      expect({ path, status: without.status }).toEqual({ path, status: 401 });
      expect(await without.text()).not.toMatch(/SELECT|question/i);
      expect({ path, status: (await fetch(`${closed.url}${path}`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status }).toEqual({ path, status: 401 });
      expect({ path, status: (await fetch(`${closed.url}${path}`, { headers: auth })).status }).toEqual({ path, status: 200 });
    }
    // A browser cannot send a bearer header to the board's page: it asks for the token as a Basic password.
    const challenge = await fetch(`${closed.url}/queues`);
    expect(challenge.headers.get('www-authenticate')).toMatch(/^Basic /);
    const basic = `Basic ${Buffer.from(`anyone:${token}`).toString('base64')}`;
    expect((await fetch(`${closed.url}/queues/api/queues`, { headers: { authorization: basic } })).status).toBe(200);
  });

  it('keeps /api/health, /metrics and /api/openapi.json open', async () => {
    expect((await fetch(`${closed.url}/api/health`)).status).toBe(200);
    const metrics = await fetch(`${closed.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/sqlsweep_runs\{status="running"\} 1/);
    expect((await fetch(`${closed.url}/api/openapi.json`)).status).toBe(200);
  });

  it('answers every read without the token when the operator opens reads; state changes still need it', async () => {
    const open = await start(t, { SQLSWEEP_OPEN_READS: '1' });
    try {
      for (const path of sensitive) expect({ path, status: (await fetch(`${open.url}${path}`)).status }).toEqual({ path, status: 200 });
      expect((await post(open.url, { config: config('pipeline: zero-shot'), dryRun: true }, {})).status).toBe(401);
    } finally {
      await open.app.close();
    }
  });

  it.each([
    ['an absolute path', '/etc/passwd', /"\/etc\/passwd" is absolute/],
    ['a path with ..', '../x', /"\.\.\/x" holds "\.\."/],
    ['a link out of the corpus directory', 'sub/link-out.txt', /"sub\/link-out\.txt" is a link to .*secret\.txt, outside the corpus directory/],
  ])('refuses a file knob naming %s with 400, storing nothing', async (_name, path, reason) => {
    const before = await stored();
    for (const dryRun of [false, true]) {
      const res = await post(closed.url, { config: config(`{ pipeline: r3, grid: { ragCorpus: ["${path}"] } }`), source: 'r3.yaml', dryRun });
      expect(res.status).toBe(400);
      const body = (await res.json()) as Record<string, string>;
      expect(body).toEqual({ error: 'invalid_config', source: 'r3.yaml', path: 'pipelines[0].grid.ragCorpus', reason: expect.stringMatching(reason) });
      expect(JSON.stringify(body)).not.toMatch(/root:|SECRET/);
    }
    expect(await stored()).toEqual(before);
  });

  it('plans a file knob naming a file inside the corpus directory', async () => {
    const res = await post(closed.url, { config: config('{ pipeline: r3, grid: { ragCorpus: ["notes.txt"] } }'), dryRun: true });
    expect(res.status).toBe(201);
  });

  it('answers 413 to a body over the limit, storing nothing', async () => {
    const before = await stored();
    const res = await post(closed.url, { config: 'x'.repeat(MAX_BODY_BYTES) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'payload_too_large', reason: expect.stringContaining(String(MAX_BODY_BYTES)) });
    expect(await stored()).toEqual(before);
  });

  it('answers 400 to a NUL byte in a path or query parameter, with no database text', async () => {
    const cases: Array<[string, string]> = [
      [`/api/runs/${runId}/items/a%00b`, 'path.itemId'],
      [`/api/runs/${runId}/items?q=a%00b`, 'query.q'],
      [`/api/runs/${runId}/items?dbId=%00`, 'query.dbId'],
    ];
    for (const [path, field] of cases) {
      const res = await fetch(`${closed.url}${path}`, { headers: auth });
      const text = await res.text();
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(JSON.parse(text)).toEqual({ error: 'invalid_request', field, reason: expect.stringMatching(/NUL byte/) });
      expect(text).not.toMatch(postgresText);
    }
  });

  it('answers a database failure with 500 and a reference, never the database message', async () => {
    await t.db.schema.alterTable('sweeps').renameTo('sweeps_elsewhere').execute();
    try {
      const res = await fetch(`${closed.url}/api/sweeps`, { headers: auth });
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(JSON.parse(text)).toEqual({ error: 'internal', reason: expect.any(String), ref: expect.any(String) });
      expect(text).not.toMatch(postgresText);
      expect(text).not.toContain('sweeps');
    } finally {
      await t.db.schema.alterTable('sweeps_elsewhere').renameTo('sweeps').execute();
    }
  });
});
