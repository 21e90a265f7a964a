import { queryRows } from '@sqlsweep/db';
import { findRunId } from './support/cli-output';
import { waitFor } from '@sqlsweep/testing';
import { startE2eStack, type E2eStack } from './support/e2e-stack';

jest.setTimeout(300_000);

describe('sqlsweep status and run --resume', () => {
  let e2e: E2eStack;

  beforeAll(async () => { e2e = await startE2eStack(); });
  afterAll(() => e2e?.stop());

  it('finishes an interrupted run from Postgres, computing nothing twice', async () => {
    const config = e2e.writeFile('resume.yaml', 'name: resume\ndataset: minibench\nsplit: dev\nitems: { limit: 10 }\nmodels: [sim-strong, sim-weak]\npipelines:\n  - pipeline: zero-shot\n');

    // Plan and start with no worker anywhere, then interrupt the command: the run exists only in Postgres (and queued).
    const first = e2e.startSweep(config);
    const runId = await waitFor('the run to be created', async () => findRunId(first.stdout));
    first.child.kill('SIGKILL');

    const waiting = await e2e.cli(['status', runId]);
    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toMatch(new RegExp(`run ${runId}: running \\[simulated\\], 10 items, 50 stage jobs planned, 0 reused`));
    expect(waiting.stdout).toMatch(/zero-shot\.generate\s+0\s+0\s+20/);

    e2e.startWorkers(1);
    const resumed = await e2e.cli(['run', '--resume', runId, '--workers', '0', '--no-progress']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(`resuming run ${runId} (running)`);
    expect(resumed.stdout).toMatch(/Leaderboard/);

    const rows = await queryRows<{ items: number; planned: number; stored: number }>(e2e.db)`
      SELECT (SELECT count(*)::int FROM item_results WHERE run_id = ${runId}) AS items,
             (SELECT count(DISTINCT stage_key)::int FROM run_stages WHERE run_id = ${runId}) AS planned,
             (SELECT count(*)::int FROM stage_results) AS stored`;
    expect(rows[0]).toEqual({ items: 20, planned: 50, stored: 50 });

    const done = await e2e.cli(['status', runId]);
    expect(done.stdout).toMatch(new RegExp(`run ${runId}: done`));
    expect(done.stdout).toMatch(/Leaderboard/);
    // Resuming a finished run changes nothing.
    const again = await e2e.cli(['run', '--resume', runId, '--workers', '0', '--no-progress']);
    expect(again.code).toBe(0);
    expect((await queryRows<{ n: number }>(e2e.db)`SELECT count(*)::int AS n FROM stage_results`)[0].n).toBe(50);
  });
});
