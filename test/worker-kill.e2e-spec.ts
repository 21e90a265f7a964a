import { queryRows } from '@sqlsweep/db';
import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { itemResultCounts, runRow, waitForStageResults } from './support/stored-results';

jest.setTimeout(400_000);

describe('a worker killed with SIGKILL mid-sweep', () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({
      workers: 2,
      simulator: { config: 'test/fixtures/llm-sim-slow.yaml' },
      // Few slots and short locks: the killed worker holds jobs, and they come back within seconds.
      env: { SQLSWEEP_LLM_CONCURRENCY: '2', SQLSWEEP_JOB_LOCK_MS: '2000' },
    });
  });
  afterAll(() => e2e?.stop());

  it('loses no item and duplicates none', async () => {
    const cli = e2e.startSweep('test/fixtures/zero-shot-sweep.yaml');
    const generatedAtKill = await waitForStageResults(e2e.db, 'zero-shot.generate', 10, cli);
    e2e.workers[0].child.kill('SIGKILL');
    expect(generatedAtKill).toBeLessThan(120);

    const result = await cli.finished;
    expect(result.code).toBe(0);
    const runId = runIdOf(result.stdout);
    expect((await runRow(e2e.db, runId)).status).toBe('done');
    expect(await itemResultCounts(e2e.db, runId)).toEqual({ n: 120, distinct_items: 120, errored: 0 });
    // Every planned stage has exactly one stored result, and none failed.
    const planned = await queryRows<{ planned: number; stored: number }>(e2e.db)`
      SELECT count(DISTINCT rs.stage_key)::int AS planned, count(DISTINCT r.stage_key)::int AS stored
      FROM run_stages rs LEFT JOIN stage_results r ON r.stage_key = rs.stage_key WHERE rs.run_id = ${runId}`;
    expect(planned[0].stored).toBe(planned[0].planned);
    expect(await e2e.db.selectFrom('stage_failures').selectAll().execute()).toEqual([]);
  });
});
