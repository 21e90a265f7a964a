import { randomUUID } from 'node:crypto';
// Test helpers build on db; this spec-only import must not make the project graph circular.
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { sql } from 'kysely';
import { executeScript } from './connection';
import { RunRepository, type PlannedStage } from './run.repository';
import { StageRepository, type StageResultInput } from './stage.repository';

const key = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0').slice(0, 64);

describe('a commit group: results stored and the stages they made ready looked up, in one round trip', () => {
  let t: TestDatabase;
  let stages: StageRepository;
  let runId: string;
  const items = 40;

  beforeAll(async () => {
    t = await createTestDatabase();
    stages = new StageRepository(t.db);
    const dataset = await t.db.insertInto('datasets').values({ name: 'commit' }).returning('id').executeTakeFirstOrThrow();
    const version = await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'c', format: 'minibench', source_path: '-', item_count: items })
      .returning('id').executeTakeFirstOrThrow();
    const variantId = randomUUID();
    // Per item: c reads a and b.
    const plan = Array.from({ length: items }, (_, i): PlannedStage[] => [
      { variantId, itemId: `i${i}`, stage: 'a', stageKey: key(`a${i}`), role: 'sql', params: {}, inputs: {}, isFinal: false },
      { variantId, itemId: `i${i}`, stage: 'b', stageKey: key(`b${i}`), role: 'llm', params: {}, inputs: {}, isFinal: false },
      { variantId, itemId: `i${i}`, stage: 'c', stageKey: key(`c${i}`), role: 'sql', params: {}, inputs: { a: key(`a${i}`), b: key(`b${i}`) }, isFinal: true },
    ]).flat();
    runId = await new RunRepository(t.db).createRun({
      sweep: { name: 'commit', source: '-', config: {}, configHash: 'commit' }, datasetVersionId: version.id, priority: 'interactive',
      itemCount: items, stageJobs: plan.length, reusedStages: 0, simulated: true,
      variants: [{ id: variantId, variantKey: 'commit', label: 'commit', pipeline: 'test', model: 'sim', sampleIndex: 0, params: {} }], stages: plan,
    });
  });
  afterAll(async () => t.drop());

  const result = (name: string, output: unknown = { name }): StageResultInput => ({ stageKey: key(name), stage: name[0], output, simulated: true, machine: 'test' });
  const readyKeys = (ready: Array<{ stage_key: string }>) => ready.map((r) => r.stage_key);

  it('sees the results it has just committed, durably or not', async () => {
    await stages.saveResults([result('b0'), result('b1')]);
    const durable = await stages.saveResultsAndFindReady([result('a0')], [key('a0')]);
    expect([...durable.written]).toEqual([key('a0')]);
    expect(readyKeys(durable.ready)).toEqual([key('c0')]);
    expect(durable.ready[0].input_outputs).toEqual({ [key('a0')]: { name: 'a0' }, [key('b0')]: { name: 'b0' } });
    const cheap = await stages.saveResultsAndFindReady([result('a1')], [key('a1')], { durable: false });
    expect(readyKeys(cheap.ready)).toEqual([key('c1')]);
    // Stored already: nothing written again, and the lookup alone (a retried job) still finds the stage ready.
    const again = await stages.saveResultsAndFindReady([result('a1')], [key('a1')]);
    expect(again.written.size).toBe(0);
    expect(readyKeys(again.ready)).toEqual([key('c1')]);
    expect(readyKeys((await stages.saveResultsAndFindReady([], [key('a1')])).ready)).toEqual([key('c1')]);
  });

  it('closes the items the final stages it stores finish, in the same round trip, once', async () => {
    const itemResults = () => t.db.selectFrom('item_results').select(['item_id', 'final_stage_key', 'correct']).where('run_id', '=', runId).orderBy('item_id').execute();
    await stages.saveResults([result('a2'), result('b2'), result('a3'), result('b3'), result('c3', { correct: false, reason: 'mismatch' })]);
    const stored = await stages.saveResultsAndFindReady([result('c2', { correct: true, reason: 'match' })], [key('c2')], { closeItemsEndingWith: [key('c2')] });
    expect(stored.closed).toEqual([{ runId, allClosed: false }]);
    expect(await itemResults()).toEqual([{ item_id: 'i2', final_stage_key: key('c2'), correct: true }]);
    // A retried job: nothing left to close. A key stored earlier, closed without storing anything.
    expect((await stages.saveResultsAndFindReady([result('c2', { correct: true, reason: 'match' })], [key('c2')], { closeItemsEndingWith: [key('c2')] })).closed).toEqual([]);
    expect((await stages.saveResultsAndFindReady([], [key('c3')], { closeItemsEndingWith: [key('c3')] })).closed).toEqual([{ runId, allClosed: false }]);
    expect(await itemResults()).toEqual([
      { item_id: 'i2', final_stage_key: key('c2'), correct: true }, { item_id: 'i3', final_stage_key: key('c3'), correct: false },
    ]);
    const run = await t.db.selectFrom('runs').select('closed_items').where('id', '=', runId).executeTakeFirstOrThrow();
    expect(run.closed_items).toBe(2);
    // Without final keys, nothing is closed.
    expect((await stages.saveResultsAndFindReady([result('a4')], [key('a4')])).closed).toBeUndefined();
  });

  it('keeps the commit and the lookup when closing the items fails, and says nothing was closed', async () => {
    await stages.saveResults([result('a5'), result('b5'), result('b6')]);
    // An item result needs a reason: a final output without one cannot close its item.
    const stored = await stages.saveResultsAndFindReady([result('c5', { correct: true }), result('a6')], [key('c5'), key('a6')], { closeItemsEndingWith: [key('c5')] });
    expect([...stored.written].sort()).toEqual([key('a6'), key('c5')].sort());
    expect(readyKeys(stored.ready)).toEqual([key('c6')]);
    expect(stored.closed).toBeUndefined();
    expect((await stages.getResults([key('c5')])).get(key('c5'))?.output).toEqual({ correct: true });
    expect(await t.db.selectFrom('item_results').select('item_id').where('item_id', '=', 'i5').execute()).toEqual([]);
    // Nothing to store, the same.
    expect((await stages.saveResultsAndFindReady([], [key('c5')], { closeItemsEndingWith: [key('c5')] })).closed).toBeUndefined();
    await expect(stages.saveResultsAndFindReady([{ ...result('a7'), runId: 'not-a-uuid' }], [key('a7')], { closeItemsEndingWith: [key('c5')] })).rejects.toThrow(/uuid/);
  });

  it('stores outputs exactly as given: quotes, backslashes, unicode, null', async () => {
    const outputs = [
      { sql: "SELECT name FROM t WHERE x = 'it''s' AND y LIKE '%\\_%'", note: 'back\\slash "quoted" \n new line \t tab' },
      { text: 'héllo wörld — 数据库 🚀', nested: [1, null, { e: '' }] },
      null,
    ];
    await stages.saveResultsAndFindReady(outputs.map((o, i) => result(`a${10 + i}`, o)), []);
    const stored = await stages.getResults(outputs.map((_, i) => key(`a${10 + i}`)));
    expect(outputs.map((_, i) => stored.get(key(`a${10 + i}`))?.output)).toEqual(outputs);
  });

  it('leaves the pool usable after a failed commit, which stores nothing', async () => {
    const bad = { ...result('a20'), runId: 'not-a-uuid' };
    await expect(stages.saveResultsAndFindReady([bad], [key('a20')])).rejects.toThrow(/uuid/);
    expect((await stages.getResults([key('a20')])).size).toBe(0);
    for (let i = 0; i < 6; i++) expect((await stages.saveResultsAndFindReady([result(`a${21 + i}`)], [])).written.size).toBe(1);
  });

  it('refuses a step of two statements and a name reused for another statement, rather than misplace rows', async () => {
    const one = sql<{ n: number }>`SELECT 1 AS n`.compile(t.db);
    await expect(executeScript(t.db, ['BEGIN; SET LOCAL synchronous_commit = off', { name: 'spec-one', query: one }, 'COMMIT']))
      .rejects.toThrow(/cannot insert multiple commands into a prepared statement/);
    expect(await executeScript(t.db, ['BEGIN', { name: 'spec-one', query: one }, 'COMMIT'])).toEqual([[{ n: 1 }]]);
    await expect(executeScript(t.db, [{ name: 'spec-one', query: sql`SELECT 2 AS n`.compile(t.db) }])).rejects.toThrow(/another statement/);
    const two = sql<{ n: number }>`SELECT 2 AS n`.compile(t.db);
    await expect(executeScript(t.db, [{ name: 'spec-new', query: one }, { name: 'spec-new', query: two }])).rejects.toThrow(/another statement/);
    // An empty step answers with no command: the rows still go to their own steps.
    expect(await executeScript(t.db, ['', { name: 'spec-one', query: one }])).toEqual([[{ n: 1 }]]);
  });

  it('skips the steps after one that fails, so that nothing of the script is kept', async () => {
    await executeScript(t.db, ['CREATE TABLE IF NOT EXISTS script_rows (n integer PRIMARY KEY)']);
    const insert = (n: number) => sql`INSERT INTO script_rows VALUES (${n})`.compile(t.db);
    const failing = sql`SELECT 1 / ${0}::int AS n`.compile(t.db);
    await expect(executeScript(t.db, ['BEGIN', { name: 'spec-insert', query: insert(1) }, { name: 'spec-fail', query: failing }, 'COMMIT', { name: 'spec-insert', query: insert(2) }]))
      .rejects.toThrow(/division by zero/);
    const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM script_rows`.compile(t.db);
    expect(await executeScript(t.db, [{ name: 'spec-count', query: count }])).toEqual([[{ n: 0 }]]);
  });

  it('of two inputs stored at the same time by different callers, one lookup finds the stage ready', async () => {
    const other = new StageRepository(t.db);
    for (let i = 30; i < items; i++) {
      const [a, b] = await Promise.all([
        stages.saveResultsAndFindReady([result(`a${i}`)], [key(`a${i}`)]),
        other.saveResultsAndFindReady([result(`b${i}`)], [key(`b${i}`)]),
      ]);
      expect([...readyKeys(a.ready), ...readyKeys(b.ready)]).toContain(key(`c${i}`));
    }
  });
});
