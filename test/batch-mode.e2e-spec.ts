import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { runCli, startSimulator, startWorkers, type Proc } from './support/e2e';

jest.setTimeout(400_000);

describe('a sweep in batch mode', () => {
  let t: TestDatabase;
  let sim: Proc & { url: string };
  let workers: Proc[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    sim = await startSimulator();
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await sim?.stop();
    await t?.drop();
  });

  it('answers every LLM stage through the provider batch API, none online, and finishes every item', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-batch-'));
    const env = { DATABASE_URL: t.url, SQLSWEEP_QUEUE_PREFIX: testQueuePrefix(), SQLSWEEP_LLM_SIM_URL: sim.url, SQLSWEEP_DATA_DIR: dir, SQLSWEEP_BATCH_POLL_MS: '300' };
    expect((await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env)).code).toBe(0);
    workers = startWorkers(1, env);
    const config = join(dir, 'batch.yaml');
    writeFileSync(config, 'name: batch\ndataset: minibench\nsplit: dev\nitems: { limit: 20 }\nmodels: [sim-strong, sim-weak]\nllmMode: batch\npipelines:\n  - pipeline: zero-shot\n');
    const r = await runCli(['run', config, '--workers', '0', '--no-progress'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const runId = /run ([0-9a-f-]{36}) created/.exec(r.stdout)![1];

    const { rows } = await sql<{ n: number; errored: number; traced: number }>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE errored)::int AS errored,
        (SELECT count(*)::int FROM stage_results WHERE stage = 'zero-shot.generate' AND trace->>'response' IS NOT NULL) AS traced
      FROM item_results WHERE run_id = ${runId}`.execute(t.db);
    expect(rows[0]).toEqual({ n: 40, errored: 0, traced: 40 });
    const stats = (await (await fetch(`${sim.url}/sim/stats`)).json()) as Record<string, { requests: number }>;
    for (const model of ['sim-strong', 'sim-weak']) expect(stats[model]?.requests ?? 0).toBe(0);
  });
});
