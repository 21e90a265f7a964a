import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { runCli, startSimulator, startWorkers, type Proc } from './support/e2e';

jest.setTimeout(500_000);

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
      'items: { limit: 10 }',
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

  it('gives every item of both variants a result, with stage traces, demonstrations and revision metrics', async () => {
    const run = await runCli(['run', config, '--workers', '0', '--no-progress'], env, 450_000);
    expect(run.code).toBe(0);
    const runId = /run ([0-9a-f-]{36}) created/.exec(run.stdout)![1]!;

    const variants = await t.db.selectFrom('variants').select(['id', 'label']).where('run_id', '=', runId).execute();
    expect(variants).toHaveLength(2);
    const results = await t.db.selectFrom('item_results').selectAll().where('run_id', '=', runId).execute();
    expect(results).toHaveLength(20);
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
  });
});
