import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { sql } from 'kysely';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { repoRoot, runCli, startSimulator, startWorkers, waitFor, type CliResult, type Proc } from './support/e2e';

jest.setTimeout(400_000);

/**
 * Redis holds only work in flight. Wiping this sweep's queues mid-run (what a Redis restart without persistence
 * does) must cost time, not results: the run is re-planned from Postgres and finishes with every item once.
 */
describe('losing every queued job mid-sweep', () => {
  let t: TestDatabase;
  let sim: Proc & { url: string };
  let workers: Proc[] = [];
  const prefix = testQueuePrefix();

  beforeAll(async () => {
    t = await createTestDatabase();
    sim = await startSimulator({ config: 'test/fixtures/llm-sim-slow.yaml' });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await sim?.stop();
    await t?.drop();
  });

  it('finishes from Postgres with no item lost or duplicated', async () => {
    const env = {
      DATABASE_URL: t.url, SQLSWEEP_QUEUE_PREFIX: prefix, SQLSWEEP_LLM_SIM_URL: sim.url,
      SQLSWEEP_DATA_DIR: mkdtempSync(join(tmpdir(), 'sqlsweep-loss-')), SQLSWEEP_LLM_CONCURRENCY: '2',
    };
    expect((await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env)).code).toBe(0);
    workers = startWorkers(2, env);
    const cli = spawn(process.execPath, [join(repoRoot, 'bin', 'sqlsweep'), 'run', 'test/fixtures/zero-shot-sweep.yaml', '--workers', '0', '--no-progress', '--stall-seconds', '3'], { cwd: repoRoot, env: { ...process.env, ...env } });
    let stdout = '';
    cli.stdout.on('data', (d: Buffer) => (stdout += d));
    cli.stderr.on('data', (d: Buffer) => (stdout += d));
    let exited = false;
    const finished = new Promise<CliResult>((resolve) => cli.on('exit', (code) => { exited = true; resolve({ code: code ?? 1, stdout, stderr: '' }); }));

    await waitFor('the sweep to be under way', async () => {
      if (exited) throw new Error(`sqlsweep run exited before the sweep got going:\n${stdout}`);
      const row = await t.db.selectFrom('stage_results').select((eb) => eb.fn.countAll<number>().as('n')).where('stage', '=', 'zero-shot.generate').executeTakeFirstOrThrow();
      return Number(row.n) >= 10 ? true : undefined;
    }, 300_000);
    const redis = new IORedis(process.env.REDIS_URL!);
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    redis.disconnect();

    const result = await finished;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/no progress for 3s: re-checked \d+ ready stages/);
    const runId = /run ([0-9a-f-]{36}) created/.exec(result.stdout)![1];
    const { rows } = await sql<{ n: number; distinct_items: number; errored: number }>`
      SELECT count(*)::int AS n, count(DISTINCT (variant_id, item_id))::int AS distinct_items, count(*) FILTER (WHERE errored)::int AS errored
      FROM item_results WHERE run_id = ${runId}`.execute(t.db);
    expect(rows[0]).toEqual({ n: 120, distinct_items: 120, errored: 0 });
    expect((await t.db.selectFrom('runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow()).status).toBe('done');
  });
});
