import { queryRows } from '@sqlsweep/db';
import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { itemResultCounts, runRow } from './support/stored-results';

jest.setTimeout(300_000);

/**
 * A provider that answers 400 to every call of one model (past the context length, a content filter) makes the
 * worker throw UnrecoverableError: BullMQ fails the job at attempt 1 of 8. The stage must still settle: its failure
 * recorded, its items errored and the run ended, with no manual step.
 */
describe('a stage that fails for good at its first attempt', () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 1, simulator: { config: 'test/fixtures/llm-sim-refuses-strong.yaml' } });
  });
  afterAll(() => e2e?.stop());

  it('ends its run done, the refused items errored and their failures recorded, each call made once', async () => {
    // The CLI's own stall check is set past the test's end: the run must end without it.
    const result = await e2e.cli(['run', 'test/fixtures/zero-shot-small-sweep.yaml', '--workers', '0', '--no-progress', '--stall-seconds', '600'], 90_000);
    expect(result.code).toBe(0);
    const runId = runIdOf(result.stdout);
    expect(await runRow(e2e.db, runId)).toMatchObject({ status: 'done', failure_reason: null });
    expect(await itemResultCounts(e2e.db, runId)).toEqual({ n: 12, distinct_items: 12, errored: 6 });

    const errored = await queryRows<{ model: string; reason: string }>(e2e.db)`
      SELECT v.model, ir.reason FROM item_results ir JOIN variants v ON v.id = ir.variant_id
      WHERE ir.run_id = ${runId} AND ir.errored`;
    expect(new Set(errored.map((r) => r.model))).toEqual(new Set(['sim-strong']));
    for (const r of errored) expect(r.reason).toMatch(/^stage failed: .*maximum context length was exceeded/);
    const failures = await queryRows<{ stage: string; n: number }>(e2e.db)`
      SELECT stage, count(*)::int AS n FROM stage_failures WHERE run_id = ${runId} GROUP BY stage ORDER BY stage`;
    expect(failures).toContainEqual({ stage: 'zero-shot.generate', n: 6 });

    // A 400 is not retried: one call per refused item.
    const stats = (await (await fetch(`${e2e.sim.url}/sim/stats`)).json()) as Record<string, { badRequests: number }>;
    expect(stats['sim-strong'].badRequests).toBe(6);

    const status = await e2e.cli(['status', runId]);
    expect(status.stdout).toMatch(new RegExp(`run ${runId}: done`));
    expect(status.stdout).toMatch(/6 of 12 item results errored/);
    expect(status.stdout).toMatch(/zero-shot\.generate\s+6\s+6\s+12/);
  });
});
