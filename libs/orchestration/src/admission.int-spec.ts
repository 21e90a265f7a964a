import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSweepConfig, SweepConfigError } from '@sqlsweep/contracts';
// nx-ignore-next-line
import { createTestCore, minibenchDir, type TestCore } from '@sqlsweep/testing';
import { admitStageJobs, type AdmissionBudget } from './admission';
import { OrchestratorCore } from './core';
import { registerDataset } from './register-dataset';

/** Admission control and dataset needs, planned against real Postgres with minibench and a copy without train data. */
describe('Planner admission (real Postgres)', () => {
  let testCore: TestCore<OrchestratorCore>;
  /** The test core and, after it, cores on the same database with their own admission budgets. */
  const cores: OrchestratorCore[] = [];

  const openCore = (admission?: AdmissionBudget) => {
    const core = admission ? new OrchestratorCore({ ...testCore.settings, admission }) : testCore.core;
    if (!cores.includes(core)) cores.push(core);
    return core;
  };

  beforeAll(async () => {
    testCore = await createTestCore(OrchestratorCore);
    const dir = testCore.dataDir;
    // minibench with an empty train.json: a dataset version whose train split is empty.
    const noTrain = join(dir, 'no-train');
    cpSync(minibenchDir, noTrain, { recursive: true });
    writeFileSync(join(noTrain, 'train.json'), '[]\n');
    writeFileSync(join(noTrain, 'train_gold.sql'), '');
    const core = openCore();
    await registerDataset(core.datasets, { name: 'minibench', format: 'minibench', path: minibenchDir, dataDir: join(dir, 'data') });
    await registerDataset(core.datasets, { name: 'no-train', format: 'minibench', path: noTrain, dataDir: join(dir, 'data') });
  });
  afterAll(async () => {
    for (const core of cores.slice(1)) await core.close();
    await testCore?.close();
  });

  const config = (pipelines: string[], opts: { dataset?: string; limit?: number; models?: string } = {}) => parseSweepConfig([
    'name: admission-test', `dataset: ${opts.dataset ?? 'minibench'}`, 'split: dev', `items: { limit: ${opts.limit ?? 3} }`,
    `models: ${opts.models ?? '[sim-strong]'}`, 'pipelines:', ...pipelines.map((p) => `  - ${p}`), '',
  ].join('\n'), 'x.yaml');

  const refusal = async (attempt: Promise<unknown>): Promise<SweepConfigError> => {
    const e = await attempt.then(() => undefined, (err: unknown) => err);
    expect(e).toBeInstanceOf(SweepConfigError);
    return e as SweepConfigError;
  };

  it('refuses a 10^7-variant grid from its sizes alone, naming the product, at once and without growing', async () => {
    const values = '[0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]';
    const huge = { ...config([`{ pipeline: rb-sql, grid: { theta: ${values}, mu: ${values}, muPrime: ${values}, temperature: ${values}, maxTokens: [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192] } }`], { models: '[sim-strong, sim-weak]' }), repeats: 50 };
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const e = await refusal(openCore().planner.plan(huge, 'x.yaml'));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
    expect(e.path).toBe('pipelines[0].grid');
    expect(e.reason).toBe('10 maxTokens x 10 mu x 10 muPrime x 10 temperature x 10 theta x 2 models x 50 repeats'
      + ' = 10,000,000 variants exceeds the budget of 10,000 variants (SQLSWEEP_MAX_VARIANTS)');
  });

  it('counts exactly the stage jobs a plan holds, and refuses a sweep over the stage-job budget naming its product', async () => {
    const entries = [
      '{ pipeline: rb-sql, grid: { shots: [0, 2], maxCorrections: [1, 3] } }',
      '{ pipeline: dr-chain, grid: { simplification: [true, false] } }',
      '{ pipeline: zero-shot }',
    ];
    const sweep = config(entries, { limit: 4 });
    const plan = await openCore().planner.plan(sweep, 'x.yaml');
    const train = (await cores[0].datasets.listItems(plan.version.id, { split: 'train' })).length;
    const counted = admitStageJobs(sweep, 'x.yaml', { items: 4, trainItems: train }, { maxVariants: 10_000, maxStageJobs: 10_000_000 });
    expect(counted).toBe(plan.stages.length);

    const tight = openCore({ maxVariants: 10_000, maxStageJobs: counted - 1 });
    const e = await refusal(tight.planner.plan(sweep, 'x.yaml'));
    expect(e.path).toBe('pipelines[1]');
    expect(e.reason).toMatch(new RegExp(`^2 variants x 4 items x \\d+ to \\d+ stages \\+ ${train} train items x up to 2 stages per variant = [\\d,]+ stage jobs \\(${counted.toLocaleString('en-US')} in all\\) exceeds the budget of ${(counted - 1).toLocaleString('en-US')} stage jobs \\(SQLSWEEP_MAX_STAGE_JOBS\\)$`));
    await expect(openCore({ maxVariants: 5, maxStageJobs: 10_000_000 }).planner.plan(sweep, 'x.yaml')).rejects.toThrow('x.yaml: pipelines[0].grid: 2 maxCorrections x 2 shots x 1 model x 1 repeat = 4 variants (7 in all) exceeds the budget of 5 variants');
  });

  it('refuses shots on a dataset whose train split is empty, naming the pipeline entry, the knob and the dataset; shots 0 plan', async () => {
    const core = openCore();
    const runsBefore = await testCore.database.db.selectFrom('runs').select('id').execute();
    const e = await refusal(core.planner.plan(config(['{ pipeline: zero-shot }', '{ pipeline: rb-sql, grid: { shots: [0, 3] } }'], { dataset: 'no-train' }), 'x.yaml'));
    expect(e.path).toBe('pipelines[1].grid.shots');
    expect(e.reason).toMatch(/^rb-sql with shots=3 needs at least 3 items in the train split, but dataset "no-train" \(version [0-9a-f]{12}\) has 0 \(register it from a folder with train data, or sweep this knob at 0\)$/);
    for (const entry of ['{ pipeline: fixed-few-shot }', '{ pipeline: ucs-sql }', '{ pipeline: dr-chain, grid: { k1: [0] } }']) {
      await expect(core.planner.plan(config([entry], { dataset: 'no-train' }), 'x.yaml')).rejects.toThrow(/pipelines\[0\]\.grid\.(shots|k2): .* needs at least 1 item in the train split, but dataset "no-train"/);
    }
    expect(await testCore.database.db.selectFrom('runs').select('id').execute()).toEqual(runsBefore);

    const plan = await core.planner.plan(config(['{ pipeline: rb-sql, grid: { shots: [0] } }', '{ pipeline: dr-chain, grid: { k1: [0], k2: [0] } }'], { dataset: 'no-train' }), 'x.yaml');
    expect(plan.variants).toHaveLength(2);
    // minibench's 161 train items cover the most shots rb-sql allows.
    await expect(core.planner.plan(config(['{ pipeline: rb-sql, grid: { shots: [8] } }']), 'x.yaml')).resolves.toBeDefined();
  });
});
