import { dryRunTotals, runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { runRow } from './support/stored-results';

// The offline repository alone is 483 stage jobs; on 2 cores shared with other suites this can take minutes.
jest.setTimeout(1_000_000);

describe('DR-Chain end to end on minibench dev through real workers and the simulator', () => {
  let e2e: E2eStack;
  let config: string;

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 2 });
    config = e2e.writeFile('dr-chain.yaml', [
      'name: dr-chain-e2e',
      'dataset: minibench',
      'split: dev',
      'items: { limit: 6 }',
      'models: [sim-weak]',
      'pipelines:',
      '  - pipeline: dr-chain',
      '    grid:',
      '      simplification: [true, false]',
      '      maxRevisions: [2]',
      'seed: 7',
      '',
    ].join('\n'));
  });
  afterAll(() => e2e?.stop());

  // Counted by hand from the method: offline, 161 simplifications (simplifying variant) and 161 repository entries
  // per variant, gathered into one training set per variant; per item, the shared gold, then simplify, skeletons,
  // retrieve, generate, 2 x (feedback, explain, revise), final, evaluate with simplification (12) and the same less
  // simplify without (11).
  const TRAIN = 161;
  const ITEMS = 6;
  const expectedJobs = TRAIN + 2 * (TRAIN + 1) + ITEMS * (1 + 12 + 11);
  const expectedLlmCalls = TRAIN + ITEMS * ((1 + 1 + 2 + 2) + (1 + 2 + 2));

  it('gives every item of both variants a result, with stage traces, demonstrations and revision metrics; a rerun reuses all', async () => {
    const dry = await e2e.cli(['run', config, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dryRunTotals(dry.stdout)).toMatchObject({ needed: expectedJobs, reused: 0, llmCalls: expectedLlmCalls });

    const run = await e2e.runSweep(config, 900_000);
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stdout);
    const firstRun = await runRow(e2e.db, runId);
    expect(firstRun).toMatchObject({ status: 'done', stage_jobs: expectedJobs, reused_stages: 0 });

    const variants = await e2e.db.selectFrom('variants').select(['id', 'label']).where('run_id', '=', runId).execute();
    expect(variants).toHaveLength(2);
    const results = await e2e.db.selectFrom('item_results').selectAll().where('run_id', '=', runId).execute();
    expect(results).toHaveLength(2 * ITEMS);
    expect(results.filter((r) => r.errored)).toEqual([]);
    for (const r of results) {
      expect(r.metrics['revision.count']).toBeGreaterThanOrEqual(1);
      expect(r.metrics['revision.count']).toBeLessThanOrEqual(2);
      expect(r.metrics['retrieve.demonstrations']).toBe(8);
    }

    const traced = async (stage: string) => e2e.db.selectFrom('stage_results').select(['stage', 'trace', 'output'])
      .where('stage', '=', stage).execute();
    // The repository: one simplification per training item (161), shared by the simplifying variant only.
    const trainSimplify = await traced('dr-chain.train-simplify');
    expect(trainSimplify).toHaveLength(161);
    expect(trainSimplify.every((r) => (r.trace as { prompt: unknown[] }).prompt.length === 2)).toBe(true);
    const trainSkeletons = await traced('dr-chain.train-skeletons');
    expect(trainSkeletons).toHaveLength(2 * 161);
    const entries = trainSkeletons.map((r) => (r.output as { entries: unknown[] }).entries.length).sort();
    expect(entries.filter((n) => n === 2)).toHaveLength(161);
    for (const stage of ['dr-chain.simplify', 'dr-chain.generate', 'dr-chain.explain.1', 'dr-chain.revise.1']) {
      const rows = await traced(stage);
      expect(rows.length).toBeGreaterThan(0);
      const called = rows.filter((r) => r.trace !== null);
      expect(called.length).toBeGreaterThan(0);
      for (const r of called) {
        const trace = r.trace as { prompt: Array<{ content: string }>; response: string };
        expect(trace.prompt.length).toBeGreaterThan(0);
        expect(typeof trace.response).toBe('string');
      }
    }
    // Generation shows the retrieved training pairs before the target question.
    const generate = (await traced('dr-chain.generate'))[0]!.trace as { prompt: Array<{ content: string }> };
    expect(generate.prompt[1]!.content.match(/^Question: /gm)!.length).toBe(9);
    // Revision ran on the first result and the chain stopped once the result repeated.
    const feedback2 = await traced('dr-chain.feedback.2');
    expect(feedback2.length).toBeGreaterThan(0);
    expect(feedback2.some((r) => (r.output as { stopped: boolean }).stopped)).toBe(true);

    const again = await e2e.runSweep(config, 300_000);
    expect(again.code).toBe(0);
    const secondRun = await runRow(e2e.db, runIdOf(again.stdout));
    expect(secondRun).toMatchObject({ status: 'done', stage_jobs: 0, reused_stages: expectedJobs });
  });
});
