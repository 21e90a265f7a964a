import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { repoRoot, runCli, startSimulator, startWorkers, waitFor, type Proc } from './support/e2e';

jest.setTimeout(300_000);

describe('sqlsweep status and run --resume', () => {
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

  it('finishes an interrupted run from Postgres, computing nothing twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-resume-'));
    const env = { DATABASE_URL: t.url, SQLSWEEP_QUEUE_PREFIX: testQueuePrefix(), SQLSWEEP_LLM_SIM_URL: sim.url, SQLSWEEP_DATA_DIR: dir };
    expect((await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env)).code).toBe(0);
    const config = join(dir, 'resume.yaml');
    writeFileSync(config, 'name: resume\ndataset: minibench\nsplit: dev\nitems: { limit: 10 }\nmodels: [sim-strong, sim-weak]\npipelines:\n  - pipeline: zero-shot\n');

    // Plan and start with no worker anywhere, then interrupt the command: the run exists only in Postgres (and queued).
    const first = spawn(process.execPath, [join(repoRoot, 'bin', 'sqlsweep'), 'run', config, '--workers', '0', '--no-progress'], { cwd: repoRoot, env: { ...process.env, ...env } });
    let out = '';
    first.stdout.on('data', (d: Buffer) => (out += d));
    const runId = await waitFor('the run to be created', async () => /run ([0-9a-f-]{36}) created/.exec(out)?.[1]);
    first.kill('SIGKILL');

    const waiting = await runCli(['status', runId], env);
    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toMatch(new RegExp(`run ${runId}: running \\[simulated\\], 10 items, 50 stage jobs planned, 0 reused`));
    expect(waiting.stdout).toMatch(/zero-shot\.generate\s+0\s+0\s+20/);

    workers = startWorkers(1, env);
    const resumed = await runCli(['run', '--resume', runId, '--workers', '0', '--no-progress'], env);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(`resuming run ${runId} (running)`);
    expect(resumed.stdout).toMatch(/Leaderboard/);

    const { rows } = await sql<{ items: number; planned: number; stored: number }>`
      SELECT (SELECT count(*)::int FROM item_results WHERE run_id = ${runId}) AS items,
             (SELECT count(DISTINCT stage_key)::int FROM run_stages WHERE run_id = ${runId}) AS planned,
             (SELECT count(*)::int FROM stage_results) AS stored`.execute(t.db);
    expect(rows[0]).toEqual({ items: 20, planned: 50, stored: 50 });

    const done = await runCli(['status', runId], env);
    expect(done.stdout).toMatch(new RegExp(`run ${runId}: done`));
    expect(done.stdout).toMatch(/Leaderboard/);
    // Resuming a finished run changes nothing.
    const again = await runCli(['run', '--resume', runId, '--workers', '0', '--no-progress'], env);
    expect(again.code).toBe(0);
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM stage_results`.execute(t.db)).rows[0].n).toBe(50);
  });
});
