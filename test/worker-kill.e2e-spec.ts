import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { repoRoot, runCli, startSimulator, startWorkers, waitFor, type CliResult, type Proc } from './support/e2e';

jest.setTimeout(400_000);

describe('a worker killed with SIGKILL mid-sweep', () => {
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

  it('loses no item and duplicates none', async () => {
    const env = {
      DATABASE_URL: t.url, SQLSWEEP_QUEUE_PREFIX: prefix, SQLSWEEP_LLM_SIM_URL: sim.url,
      SQLSWEEP_DATA_DIR: mkdtempSync(join(tmpdir(), 'sqlsweep-kill-')),
      // Few slots and short locks: the killed worker holds jobs, and they come back within seconds.
      SQLSWEEP_LLM_CONCURRENCY: '2', SQLSWEEP_JOB_LOCK_MS: '2000',
    };
    expect((await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env)).code).toBe(0);
    workers = startWorkers(2, env);

    const cli = spawn(process.execPath, [join(repoRoot, 'bin', 'sqlsweep'), 'run', 'test/fixtures/zero-shot-sweep.yaml', '--workers', '0', '--no-progress'], { cwd: repoRoot, env: { ...process.env, ...env } });
    let stdout = '';
    cli.stdout.on('data', (d: Buffer) => (stdout += d));
    cli.stderr.on('data', (d: Buffer) => (stdout += d));
    let exited = false;
    const finished = new Promise<CliResult>((resolve) => cli.on('exit', (code) => { exited = true; resolve({ code: code ?? 1, stdout, stderr: '' }); }));

    const generatedAtKill = await waitFor('the sweep to be under way', async () => {
      if (exited) throw new Error(`sqlsweep run exited before the sweep got going:\n${stdout}`);
      const row = await t.db.selectFrom('stage_results').select((eb) => eb.fn.countAll<number>().as('n')).where('stage', '=', 'zero-shot.generate').executeTakeFirstOrThrow();
      return Number(row.n) >= 10 ? Number(row.n) : undefined;
    }, 300_000);
    workers[0].child.kill('SIGKILL');
    expect(generatedAtKill).toBeLessThan(120);

    const result = await finished;
    expect(result.code).toBe(0);
    const runId = /run ([0-9a-f-]{36}) created/.exec(result.stdout)![1];
    const run = await t.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
    expect(run.status).toBe('done');

    const { rows } = await sql<{ n: number; distinct_items: number; errored: number }>`
      SELECT count(*)::int AS n, count(DISTINCT (variant_id, item_id))::int AS distinct_items,
             count(*) FILTER (WHERE errored)::int AS errored
      FROM item_results WHERE run_id = ${runId}`.execute(t.db);
    expect(rows[0]).toEqual({ n: 120, distinct_items: 120, errored: 0 });
    // Every planned stage has exactly one stored result, and none failed.
    const planned = await sql<{ planned: number; stored: number }>`
      SELECT count(DISTINCT rs.stage_key)::int AS planned, count(DISTINCT r.stage_key)::int AS stored
      FROM run_stages rs LEFT JOIN stage_results r ON r.stage_key = rs.stage_key WHERE rs.run_id = ${runId}`.execute(t.db);
    expect(planned.rows[0].stored).toBe(planned.rows[0].planned);
    expect(await t.db.selectFrom('stage_failures').selectAll().execute()).toEqual([]);
  });
});
