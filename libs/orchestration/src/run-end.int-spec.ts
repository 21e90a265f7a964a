import { randomUUID } from 'node:crypto';
import { RunRepository, StageRepository, type PlannedStage } from '@sqlsweep/db';
import { QueueClient } from '@sqlsweep/queue';
// nx-ignore-next-line
import { createTestDatabase, testQueuePrefix, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';
import { Advancer } from './advancer';

const key = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0').slice(0, 64);

/**
 * How a run ends (real Postgres and Redis, plans written by hand): `done` once every item has a result, errored ones
 * included, whatever stage failed; `failed`, with its reason, when it cannot proceed.
 */
describe('every run ends', () => {
  let t: TestDatabase;
  let queue: QueueClient;
  let runs: RunRepository;
  let stages: StageRepository;
  let advancer: Advancer;
  let versionId: number;

  beforeAll(async () => {
    t = await createTestDatabase();
    queue = new QueueClient(testRedisUrl(), testQueuePrefix());
    runs = new RunRepository(t.db);
    stages = new StageRepository(t.db);
    advancer = new Advancer(runs, queue);
    const dataset = await t.db.insertInto('datasets').values({ name: 'ends' }).returning('id').executeTakeFirstOrThrow();
    versionId = (await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'ends', format: 'minibench', source_path: '-', item_count: 4 })
      .returning('id').executeTakeFirstOrThrow()).id;
    await t.db.insertInto('dataset_items').values(['t1', 'd1', 'd2', 'd3'].map((itemId, position) => ({
      version_id: versionId, item_id: itemId, position, split: itemId.startsWith('t') ? 'train' as const : 'dev' as const, db_id: 'db',
      question: `question ${itemId}`, evidence: null, gold_sql: 'SELECT 1', difficulty: null, hardness: null,
    }))).execute();
  });
  afterAll(async () => {
    await queue?.close();
    await t?.drop();
  });

  async function plan(name: string, planned: (variantId: string) => PlannedStage[], itemCount: number): Promise<string> {
    const variantId = randomUUID();
    return runs.createRun({
      sweep: { name, source: '-', config: {}, configHash: name }, datasetVersionId: versionId, priority: 'interactive',
      itemCount, stageJobs: 0, reusedStages: 0, simulated: true,
      variants: [{ id: variantId, variantKey: name, label: name, pipeline: 'test', model: 'sim', sampleIndex: 0, params: {} }], stages: planned(variantId),
    });
  }
  const stage = (variantId: string, itemId: string, name: string, inputs: Record<string, string>, isFinal = false): PlannedStage =>
    ({ variantId, itemId, stage: name, stageKey: key(`${name}/${itemId}/${variantId}`), role: 'sql', params: {}, inputs, isFinal });
  const runRow = (runId: string) => t.db.selectFrom('runs').select(['status', 'failure_reason']).where('id', '=', runId).executeTakeFirstOrThrow();

  it('closes as errored the items downstream of a failed training-set stage, and the run as done', async () => {
    let train = '';
    const runId = await plan('train-failure', (v) => {
      const t1 = stage(v, 't1', 'train', {});
      train = t1.stageKey;
      const dev = ['d1', 'd2'].flatMap((item) => {
        const gen = stage(v, item, 'gen', { shots: t1.stageKey });
        return [gen, stage(v, item, 'eval', { gen: gen.stageKey }, true)];
      });
      const gen3 = stage(v, 'd3', 'gen-alone', {});
      return [t1, ...dev, gen3, stage(v, 'd3', 'eval-alone', { gen: gen3.stageKey }, true)];
    }, 3);
    const plannedStages = await t.db.selectFrom('run_stages').select(['stage', 'stage_key']).where('run_id', '=', runId).execute();
    for (const s of plannedStages.filter((p) => p.stage.endsWith('-alone'))) {
      await stages.saveResult({ stageKey: s.stage_key, stage: s.stage, output: { correct: true, errored: false, reason: 'same result' }, simulated: true, machine: 'test' });
    }
    expect(await stages.recordFailure(train, 'train', 'HTTP 400: context length exceeded')).toEqual([runId]);
    await advancer.onStageSettled(train);

    expect(await runRow(runId)).toEqual({ status: 'done', failure_reason: null });
    const items = await t.db.selectFrom('item_results').select(['item_id', 'errored', 'reason']).where('run_id', '=', runId).orderBy('item_id').execute();
    expect(items).toEqual([
      { item_id: 'd1', errored: true, reason: 'stage failed: input train failed: HTTP 400: context length exceeded' },
      { item_id: 'd2', errored: true, reason: 'stage failed: input train failed: HTTP 400: context length exceeded' },
      { item_id: 'd3', errored: false, reason: 'same result' },
    ]);
    const failed = await t.db.selectFrom('stage_failures').select('stage').where('run_id', '=', runId).orderBy('stage').execute();
    expect(failed.map((f) => f.stage)).toEqual(['eval', 'eval', 'gen', 'gen', 'train']);
  });

  it('closes as errored an item whose dataset row is gone (its stage fails with "no item"), and the run as done', async () => {
    let gen = '';
    const runId = await plan('item-gone', (v) => {
      const g = stage(v, 'gone', 'gen', {});
      gen = g.stageKey;
      return [g, stage(v, 'gone', 'eval', { gen: g.stageKey }, true)];
    }, 1);
    await stages.recordFailure(gen, 'gen', `dataset version ${versionId} has no item gone`);
    await advancer.onStageSettled(gen);
    expect(await runRow(runId)).toEqual({ status: 'done', failure_reason: null });
    expect(await t.db.selectFrom('item_results').select(['item_id', 'errored', 'difficulty']).where('run_id', '=', runId).execute())
      .toEqual([{ item_id: 'gone', errored: true, difficulty: null }]);
  });

  it('counts the items it closes on the run, once each, and closes the run with its last item', async () => {
    const runId = await plan('counted', (v) => ['d1', 'd2', 'd3'].flatMap((item) => {
      const gen = stage(v, item, 'gen', {});
      return [gen, stage(v, item, 'eval', { gen: gen.stageKey }, true)];
    }), 3);
    const evals = await t.db.selectFrom('run_stages').select(['item_id', 'stage_key']).where('run_id', '=', runId).where('stage', '=', 'eval').orderBy('item_id').execute();
    const closed = async () => (await t.db.selectFrom('runs').select(['status', 'closed_items']).where('id', '=', runId).executeTakeFirstOrThrow());
    const finish = async (i: number) => {
      await stages.saveResult({ stageKey: evals[i].stage_key, stage: 'eval', output: { correct: true, errored: false, reason: 'same result' }, simulated: true, machine: 'test' });
      await advancer.onStagesStored([{ stageKey: evals[i].stage_key, final: true }]);
    };
    await finish(0);
    expect(await closed()).toEqual({ status: 'running', closed_items: 1 });
    // A retried job closes nothing twice, and counts nothing twice.
    await advancer.onStagesStored([{ stageKey: evals[0].stage_key, final: true }]);
    await finish(1);
    expect(await closed()).toEqual({ status: 'running', closed_items: 2 });
    await finish(2);
    expect(await closed()).toEqual({ status: 'done', closed_items: 3 });
  });

  it("of two jobs closing a run's last two items at once, exactly one learns that it closed the run", async () => {
    for (let round = 0; round < 5; round++) {
      const runId = await plan(`race-${round}`, (v) => ['d1', 'd2'].flatMap((item) => {
        const gen = stage(v, item, 'gen', {});
        return [gen, stage(v, item, 'eval', { gen: gen.stageKey }, true)];
      }), 2);
      const evals = await t.db.selectFrom('run_stages').select('stage_key').where('run_id', '=', runId).where('stage', '=', 'eval').execute();
      await stages.saveResults(evals.map((e) => ({ stageKey: e.stage_key, stage: 'eval', output: { correct: false, errored: false, reason: 'differs' }, simulated: true, machine: 'test' })));
      const closings = (await Promise.all(evals.map((e) => runs.materializeItemResultsEndingWith([e.stage_key])))).flat();
      expect(closings.map((c) => c.allClosed).sort()).toEqual([false, true]);
      expect(await runs.finalizeIfComplete(runId)).toBe(true);
      expect(await t.db.selectFrom('runs').select(['status', 'closed_items']).where('id', '=', runId).executeTakeFirstOrThrow()).toEqual({ status: 'done', closed_items: 2 });
    }
  });

  it('marks a run that cannot proceed failed, saying why, and leaves a run with work to do running', async () => {
    const stuck = await plan('stuck', (v) => {
      const gen = stage(v, 'd1', 'gen', { schema: key('planned-nowhere') });
      return [gen, stage(v, 'd1', 'eval', { gen: gen.stageKey }, true)];
    }, 1);
    const going = await plan('going', (v) => [stage(v, 'd1', 'gen', {}), stage(v, 'd1', 'eval', { gen: key(`gen/d1/${v}`) }, true)], 1);

    expect(await advancer.reconcile(going)).toEqual({ enqueued: 1, finished: false });
    expect(await runRow(going)).toEqual({ status: 'running', failure_reason: null });

    const reconciled = await advancer.reconcile(stuck);
    expect(reconciled).toEqual({ enqueued: 0, finished: false, failureReason: expect.stringMatching(/^cannot proceed: 1 of 1 items have no result .*2 planned stages wait on inputs that no stage of the run computes/) });
    expect(await runRow(stuck)).toEqual({ status: 'failed', failure_reason: reconciled.failureReason });
    // An ended run stays as it ended.
    expect(await advancer.reconcile(stuck)).toEqual({ enqueued: 0, finished: false });
    expect((await runRow(stuck)).status).toBe('failed');
  });
});
