import { queryRows } from '@sqlsweep/db';
import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';

jest.setTimeout(400_000);

describe('a sweep in batch mode', () => {
  let e2e: E2eStack;

  beforeAll(async () => { e2e = await startE2eStack({ workers: 1, env: { SQLSWEEP_BATCH_POLL_MS: '300' } }); });
  afterAll(() => e2e?.stop());

  it('answers every LLM stage through the provider batch API, none online, and finishes every item', async () => {
    const config = e2e.writeFile('batch.yaml', 'name: batch\ndataset: minibench\nsplit: dev\nitems: { limit: 20 }\nmodels: [sim-strong, sim-weak]\nllmMode: batch\npipelines:\n  - pipeline: zero-shot\n');
    const r = await e2e.runSweep(config);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const runId = runIdOf(r.stdout);

    const rows = await queryRows<{ n: number; errored: number; traced: number }>(e2e.db)`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE errored)::int AS errored,
        (SELECT count(*)::int FROM stage_results WHERE stage = 'zero-shot.generate' AND trace->>'response' IS NOT NULL) AS traced
      FROM item_results WHERE run_id = ${runId}`;
    expect(rows[0]).toEqual({ n: 40, errored: 0, traced: 40 });
    const stats = (await (await fetch(`${e2e.sim.url}/sim/stats`)).json()) as Record<string, { requests: number }>;
    for (const model of ['sim-strong', 'sim-weak']) expect(stats[model]?.requests ?? 0).toBe(0);
  });
});
