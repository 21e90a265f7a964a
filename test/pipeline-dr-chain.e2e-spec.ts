import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { runCli, startSimulator, startWorkers, type Proc } from './support/e2e';

// The offline repository alone is 483 stage jobs; on 2 cores shared with other suites this can take minutes.
jest.setTimeout(1_000_000);

describe('DR-Chain end to end on minibench dev through real workers and the simulator', () => {
  let t: TestDatabase;
  let sim: Proc & { url: string };
  let workers: Proc[] = [];
  let env: NodeJS.ProcessEnv;
  let config: string;
  const prefix = testQueuePrefix();

  beforeAll(async () => {
    t = await createTestDatabase();
    sim = await startSimulator();
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-dr-chain-e2e-'));
    env = { DATABASE_URL: t.url, SQLSWEEP_QUEUE_PREFIX: prefix, SQLSWEEP_LLM_SIM_URL: sim.url, SQLSWEEP_DATA_DIR: dir };
    config = join(dir, 'dr-chain.yaml');
    writeFileSync(config, [
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
    const added = await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env);
    expect(added.code).toBe(0);
    workers = startWorkers(2, env);
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await sim?.stop();
    await t?.drop();
  });

  /** `total  <jobs needed>  <reused>  <LLM calls> ...` from the dry-run's stage table. */
  function dryRunTotals(stdout: string): { needed: number; reused: number; llmCalls: number } {
    const m = /^total\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(stdout);
    if (!m) throw new Error(`no total line in the dry-run output:\n${stdout}`);
    return { needed: Number(m[1]), reused: Number(m[2]), llmCalls: Number(m[3]) };
  }

  // Counted by hand from the method: offline, 161 simplifications (simplifying variant) and 161 repository entries
  // per variant; per item, the shared gold, then simplify, skeletons, retrieve, generate, 2 x (feedback, explain,
  // revise), final, evaluate with simplification (12) and the same less simplify without (11).
  const TRAIN = 161;
  const ITEMS = 6;
  const expectedJobs = TRAIN + 2 * TRAIN + ITEMS * (1 + 12 + 11);
  const expectedLlmCalls = TRAIN + ITEMS * ((1 + 1 + 2 + 2) + (1 + 2 + 2));

  it('gives every item of both variants a result, with stage traces, demonstrations and revision metrics; a rerun reuses all', async () => {
    const dry = await runCli(['run', config, '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dryRunTotals(dry.stdout)).toEqual({ needed: expectedJobs, reused: 0, llmCalls: expectedLlmCalls });

    const run = await runCli(['run', config, '--workers', '0', '--no-progress'], env, 900_000);
    expect(run.code).toBe(0);
    const runId = /run ([0-9a-f-]{36}) created/.exec(run.stdout)![1]!;
    const firstRun = await t.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
    expect(firstRun).toMatchObject({ status: 'done', stage_jobs: expectedJobs, reused_stages: 0 });

    const variants = await t.db.selectFrom('variants').select(['id', 'label']).where('run_id', '=', runId).execute();
    expect(variants).toHaveLength(2);
    const results = await t.db.selectFrom('item_results').selectAll().where('run_id', '=', runId).execute();
    expect(results).toHaveLength(2 * ITEMS);
    expect(results.filter((r) => r.errored)).toEqual([]);
    for (const r of results) {
      expect(r.metrics['revision.count']).toBeGreaterThanOrEqual(1);
      expect(r.metrics['revision.count']).toBeLessThanOrEqual(2);
      expect(r.metrics['retrieve.demonstrations']).toBe(8);
    }

    const traced = async (stage: string) => t.db.selectFrom('stage_results').select(['stage', 'trace', 'output'])
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

    const again = await runCli(['run', config, '--workers', '0', '--no-progress'], env, 300_000);
    expect(again.code).toBe(0);
    const secondRun = await t.db.selectFrom('runs').selectAll().where('id', '=', /run ([0-9a-f-]{36}) created/.exec(again.stdout)![1]!).executeTakeFirstOrThrow();
    expect(secondRun).toMatchObject({ status: 'done', stage_jobs: 0, reused_stages: expectedJobs });
  });
});
