import { randomUUID } from 'node:crypto';
// Test helpers build on db; this spec-only import must not make the project graph circular.
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { RunRepository, type PlannedStage } from './run.repository';
import { StageRepository } from './stage.repository';
import { StageResultGc } from './stage-result-gc';

const key = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0').slice(0, 64);

describe('sqlsweep gc: stage results no stored run references', () => {
  let t: TestDatabase;
  let runs: RunRepository;
  let stages: StageRepository;
  let versionId: number;
  beforeAll(async () => {
    t = await createTestDatabase();
    runs = new RunRepository(t.db);
    stages = new StageRepository(t.db);
    const dataset = await t.db.insertInto('datasets').values({ name: 'gc' }).returning('id').executeTakeFirstOrThrow();
    versionId = (await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'gc', format: 'minibench', source_path: '-', item_count: 2 })
      .returning('id').executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => t.drop());

  const header = (name: string, variantId: string) => ({
    sweep: { name, source: '-', config: {}, configHash: name }, datasetVersionId: versionId, priority: 'interactive', itemCount: 2, simulated: true,
    variants: [{ id: variantId, variantKey: name, label: name, pipeline: 'test', model: 'sim', sampleIndex: 0, params: {} }],
  });
  const plan = (variantId: string, keys: string[]): PlannedStage[] =>
    keys.map((k, i) => ({ variantId, itemId: `i${i}`, stage: 's', stageKey: key(k), role: 'sql', params: {}, inputs: {}, isFinal: true }));
  const save = (...keys: string[]) => stages.saveResults(keys.map((k) => ({ stageKey: key(k), stage: 's', output: { k, pad: 'x'.repeat(100) }, simulated: true, machine: 'test' })));

  it('dry run counts what a deleted run left and removes nothing; gc removes exactly that, in batches, and keeps what runs reference', async () => {
    const kept = randomUUID();
    await runs.createRun({ ...header('kept', kept), stageJobs: 2, reusedStages: 0, stages: plan(kept, ['kept-a', 'kept-b']) });
    const gone = randomUUID();
    const goneRun = await runs.createRun({ ...header('gone', gone), stageJobs: 2, reusedStages: 0, stages: plan(gone, ['gone-a', 'kept-a']) });
    await save('kept-a', 'kept-b', 'gone-a', 'orphan-1', 'orphan-2');
    await t.db.deleteFrom('runs').where('id', '=', goneRun).execute();

    const gc = new StageResultGc(t.db);
    const dry = await gc.unreferenced();
    expect(dry.results).toBe(3); // gone-a, orphan-1, orphan-2 (kept-a is still planned by the kept run)
    expect(dry.bytes).toBeGreaterThan(3 * 100);
    expect((await gc.totals()).results).toBe(5);

    const batches: number[] = [];
    const removed = await gc.removeUnreferenced({ batchSize: 2, onBatch: (d) => batches.push(d.results) });
    expect(removed).toEqual(dry);
    expect(batches).toEqual([2, 3]);
    const left = (await t.db.selectFrom('stage_results').select('stage_key').execute()).map((r) => r.stage_key).sort();
    expect(left).toEqual([key('kept-a'), key('kept-b')].sort());
    expect(await gc.unreferenced()).toEqual({ results: 0, bytes: 0 });
  });

  it('waits for a plan being written that reuses an unreferenced result, and then keeps it', async () => {
    await save('reused-by-plan', 'plain-orphan');
    const gc = new StageResultGc(t.db);
    expect((await gc.unreferenced()).results).toBe(2);
    const variantId = randomUUID();
    let gcDone = false;
    let gcRun: Promise<unknown> | undefined;
    let foundStored: boolean | undefined;
    const { runId } = await runs.writePlan(header('racing', variantId), async (writer) => {
      const [added] = await writer.add(plan(variantId, ['reused-by-plan']));
      foundStored = added?.stored;
      // gc starts while this plan's transaction is open and relies on the stored result.
      gcRun = gc.removeUnreferenced().then((r) => { gcDone = true; return r; });
      await new Promise((r) => setTimeout(r, 500));
      expect(gcDone).toBe(false); // held by the plan's uncommitted run_stages rows
      return { stageJobs: 1, reusedStages: 1 };
    });
    expect(foundStored).toBe(true);
    expect(await gcRun).toMatchObject({ results: 1 });
    const left = (await t.db.selectFrom('stage_results').select('stage_key').execute()).map((r) => r.stage_key);
    expect(left).toContain(key('reused-by-plan'));
    expect(left).not.toContain(key('plain-orphan'));
    expect(runId).toBeDefined();
  });
});
