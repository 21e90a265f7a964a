import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Client } from 'pg';
// Test helpers build on db; this spec-only import must not make the project graph circular.
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { preparedStatementSettings } from './connection';
import { readyDependentsQuery, RunRepository, type PlannedStage } from './run.repository';
import { StageRepository } from './stage.repository';

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Function Name'?: string; 'Actual Loops'?: number; Plans?: PlanNode[] }
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/** Stores a run of one variant over `itemCount` items whose plan is `stages(variantId)`, as the planner would. */
async function storePlan(t: TestDatabase, name: string, itemCount: number, stages: (variantId: string) => PlannedStage[]): Promise<void> {
  const dataset = await t.db.insertInto('datasets').values({ name }).returning('id').executeTakeFirstOrThrow();
  const version = await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: name, format: 'minibench', source_path: '-', item_count: itemCount })
    .returning('id').executeTakeFirstOrThrow();
  const variantId = randomUUID();
  const planned = stages(variantId);
  await new RunRepository(t.db).createRun({
    sweep: { name, source: '-', config: {}, configHash: name }, datasetVersionId: version.id, priority: 'interactive',
    itemCount, stageJobs: planned.length, reusedStages: 0, simulated: true,
    variants: [{ id: variantId, variantKey: name, label: name, pipeline: 'test', model: 'sim', sampleIndex: 0, params: {} }], stages: planned,
  });
}

describe('the dependents lookup every stage job makes', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => t.drop());

  it('reads stored results by key, not all of them, under the generic plan and settings it runs with', async () => {
    const key = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0').slice(0, 64);
    // 1000 items, each with a stage that reads two inputs; and a training-set stage that reads every first input.
    await storePlan(t, 'plan', 1000, (variantId) => {
      const stages = Array.from({ length: 1000 }, (_, i): PlannedStage[] => [
        { variantId, itemId: `i${i}`, stage: 'a', stageKey: key(`a${i}`), role: 'sql', params: {}, inputs: {}, isFinal: false },
        { variantId, itemId: `i${i}`, stage: 'b', stageKey: key(`b${i}`), role: 'sql', params: {}, inputs: {}, isFinal: false },
        { variantId, itemId: `i${i}`, stage: 'c', stageKey: key(`c${i}`), role: 'sql', params: {}, inputs: { a: key(`a${i}`), b: key(`b${i}`) }, isFinal: true },
      ]).flat();
      stages.push({ variantId, itemId: 'i0', stage: 'all', stageKey: key('all'), role: 'sql', params: {}, inputs: Object.fromEntries(stages.filter((s) => s.stage === 'a').map((s) => [s.itemId, s.stageKey])), isFinal: false });
      return stages;
    });

    const c = new Client({ connectionString: t.url });
    await c.connect();
    try {
      // 3,000 results of earlier sweeps, about as many as a bench run held when the lookup hashed them all for each
      // stage job: it must probe for the few keys it needs instead.
      await c.query(`INSERT INTO stage_results (stage_key, stage, output, machine)
        SELECT md5(i::text) || md5(i::text), 'earlier', '{"sql": "SELECT 1"}', 'test' FROM generate_series(1, 3000) i`);
      await c.query(`INSERT INTO stage_results (stage_key, stage, output, machine) VALUES ($1, 'a', '1', 'test'), ($2, 'b', '1', 'test')`, [key('a0'), key('b7')]);
      await c.query('ANALYZE');
      const query = readyDependentsQuery(t.db, [key('a0')]);
      for (const [name, value] of Object.entries(preparedStatementSettings)) await c.query(`SET ${name} = ${value}`);
      await c.query(`PREPARE lookup AS ${query.sql}`);
      const literal = (v: unknown) => (Array.isArray(v) ? `ARRAY[${v.map((s) => `'${String(s)}'`).join(',')}]` : String(v));
      const { rows } = await c.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) EXECUTE lookup(${query.parameters.map(literal).join(', ')})`);
      const scanned = nodes(rows[0]['QUERY PLAN'][0].Plan).filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']);
      expect(scanned).not.toContain('stage_results');
    } finally {
      await c.end();
    }
  });

  it('finds a stage that reads a training set in blocks ready once, without going through the last block for each key stored', async () => {
    const key = (s: string) => Buffer.from(`blocks-${s}`).toString('hex').padEnd(64, '0').slice(0, 64);
    const n = 300;
    const block = (name: string) => Array.from({ length: n }, (_, i) => [`${name}${i}`, key(`${name}${i}`)] as const);
    // The stage reads block a (stored in order, last) and then block s (stored first), as a training set read per stage kind.
    await storePlan(t, 'blocks', 1, (variantId) => [
      { variantId, itemId: 'i0', stage: 'train', stageKey: key('train'), role: 'sql', params: {}, inputs: Object.fromEntries([...block('a'), ...block('s')]), isFinal: true },
    ]);
    const runs = new RunRepository(t.db);
    const results = new StageRepository(t.db);
    const store = (names: string[]) => results.saveResults(names.map((name) => ({ stageKey: key(name), stage: name[0], output: 1, simulated: true, machine: 'test' })));
    const readyAfter = async (name: string) => {
      await store([name]);
      return (await runs.readyDependents([key(name)])).map((r) => r.stage_key);
    };
    await store(block('s').map(([name]) => name));
    for (let i = 0; i < n - 2; i++) expect(await readyAfter(`a${i}`)).toEqual([]);
    // Out of order: the block's last key before the one ahead of it, whose neighbour is then stored.
    expect(await readyAfter(`a${n - 1}`)).toEqual([]);
    expect(await readyAfter(`a${n - 2}`)).toEqual([key('train')]);

    // While the key after the one stored is missing, the inputs are not checked one by one.
    const c = new Client({ connectionString: t.url });
    await c.connect();
    try {
      await c.query('DELETE FROM stage_results WHERE stage_key = ANY($1)', [[key(`a${n - 2}`), key(`a${n - 1}`)]]);
      const query = readyDependentsQuery(t.db, [key(`a${n - 3}`)]);
      for (const [name, value] of Object.entries(preparedStatementSettings)) await c.query(`SET ${name} = ${value}`);
      await c.query(`PREPARE blocks_lookup AS ${query.sql}`);
      const literal = (v: unknown) => (Array.isArray(v) ? `ARRAY[${v.map((s) => `'${String(s)}'`).join(',')}]` : String(v));
      const { rows } = await c.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE blocks_lookup(${query.parameters.map(literal).join(', ')})`);
      const plan = nodes(rows[0]['QUERY PLAN'][0].Plan);
      const series = plan.filter((p) => p['Function Name'] === 'generate_series');
      expect(series).toHaveLength(1);
      expect(series[0]['Actual Loops']).toBe(0);
      expect(plan.filter((p) => p['Function Name'] === 'unnest').map((p) => p['Actual Loops'])).toEqual([1]);
    } finally {
      await c.end();
    }
  });
});

describe('a stored plan\'s statistics', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => t.drop());

  it('gathers statistics for the columns the advancing queries read by, and none for the stages\' documents', async () => {
    await storePlan(t, 'stats', 1, (variantId): PlannedStage[] => [
      { variantId, itemId: 'i0', stage: 'a', stageKey: 'a'.repeat(64), role: 'sql', params: { k: 1 }, inputs: {}, isFinal: false },
      { variantId, itemId: 'i0', stage: 'b', stageKey: 'b'.repeat(64), role: 'sql', params: { k: 2 }, inputs: { a: 'a'.repeat(64) }, isFinal: true },
    ]);
    const { rows } = await sql<{ attname: string }>`SELECT attname FROM pg_stats WHERE schemaname = 'public' AND tablename = 'run_stages'`.execute(t.db);
    const analyzed = rows.map((r) => r.attname);
    expect(analyzed).toEqual(expect.arrayContaining(['run_id', 'stage_key', 'input_keys', 'is_final', 'last_input_key']));
    expect(analyzed).not.toContain('params');
    expect(analyzed).not.toContain('inputs');
  });
});
