import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { runCli } from './support/e2e';

jest.setTimeout(300_000);

const good = `name: bad-config-test
dataset: minibench
split: dev
items: { limit: 5 }
models: [sim-strong]
pipelines:
  - pipeline: zero-shot
    grid: { temperature: [0] }
`;

const cases: Array<[string, string, RegExp]> = [
  ['bad YAML', 'name: [unclosed\ndataset: x', /: line \d+, column \d+: invalid YAML/],
  ['unknown pipeline', good.replace('zero-shot', 'mind-reading'), /: pipelines\[0\]\.pipeline: unknown pipeline "mind-reading" \(known: [^)]*zero-shot/],
  ['wrong type', good.replace('temperature: [0]', 'temperature: hot'), /: pipelines\[0\]\.grid\.temperature: expected array of numbers/],
  ['wrong item type', good.replace('limit: 5', 'limit: five'), /: items\.limit: /],
  ['missing dataset', good.replace('dataset: minibench', 'dataset: nowhere'), /: dataset: no registered dataset "nowhere"/],
  ['unknown model', good.replace('[sim-strong]', '[gpt-17]'), /: models: [^]*gpt-17: unknown model "gpt-17"/],
  ['missing file', '', /: file not found/],
];

describe('malformed sweep configs', () => {
  let t: TestDatabase;
  const prefix = testQueuePrefix();
  const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-bad-'));
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    t = await createTestDatabase();
    env = { DATABASE_URL: t.url, SQLSWEEP_QUEUE_PREFIX: prefix, SQLSWEEP_LLM_SIM_URL: 'http://127.0.0.1:9', SQLSWEEP_DATA_DIR: join(dir, 'data') };
    expect((await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env)).code).toBe(0);
  });
  afterAll(async () => t?.drop());

  it.each(cases)('%s: refused with file, path and reason; nothing written or enqueued', async (name, text, pattern) => {
    const file = join(dir, `${name.replace(/ /g, '-')}.yaml`);
    if (text) writeFileSync(file, text);
    const r = await runCli(['run', file], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(pattern);
    expect(r.stdout).not.toMatch(/created/);

    for (const table of ['sweeps', 'runs', 'variants', 'run_stages', 'stage_results', 'item_results'] as const) {
      const row = await t.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect([table, Number(row.n)]).toEqual([table, 0]);
    }
    const redis = new IORedis(process.env.REDIS_URL!);
    try {
      expect(await redis.keys(`${prefix}:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
