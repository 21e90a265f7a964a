import { randomUUID } from 'node:crypto';
// Test helpers build on db; this spec-only import must not make the project graph circular.
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { ReportRepository, type ItemResultFilter } from './report.repository';
import { RunRepository, type PlannedStage } from './run.repository';

/**
 * Item pages in dataset order walk the items by position (ReportRepository.itemResults); a text search takes the
 * join over every result. An empty search matches everything, so it gives the same page the other way.
 */
describe('item result pages in dataset order', () => {
  let t: TestDatabase;
  let reports: ReportRepository;
  let runId: string;
  const variants = [randomUUID(), randomUUID(), randomUUID()];

  beforeAll(async () => {
    t = await createTestDatabase();
    reports = new ReportRepository(t.db);
    const dataset = await t.db.insertInto('datasets').values({ name: 'pages' }).returning('id').executeTakeFirstOrThrow();
    const version = await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'p', format: 'minibench', source_path: '-', item_count: 30 })
      .returning('id').executeTakeFirstOrThrow();
    // Positions run against the ids' text order (dev-9 before dev-10 before dev-100 ...), and one db in three.
    const items = Array.from({ length: 30 }, (_, i) => ({ id: `dev-${(29 - i) * 7}`, position: i }));
    await t.db.insertInto('dataset_items').values(items.map((it) => ({
      version_id: version.id, item_id: it.id, position: it.position, split: 'dev' as const, db_id: `db${it.position % 3}`, question: `question ${it.id}?`,
      evidence: null, gold_sql: 'SELECT 1', difficulty: null, hardness: null,
    }))).execute();
    const plan: PlannedStage[] = items.flatMap((it) => variants.map((variantId, v) => ({
      variantId, itemId: it.id, stage: 'evaluate', stageKey: `${v}${it.position}`.padStart(64, '0'), role: 'sql', params: {}, inputs: {}, isFinal: true,
    })));
    runId = await new RunRepository(t.db).createRun({
      sweep: { name: 'pages', source: '-', config: {}, configHash: 'pages' }, datasetVersionId: version.id, priority: 'interactive',
      itemCount: 30, stageJobs: plan.length, reusedStages: 0, simulated: true,
      variants: variants.map((id, i) => ({ id, variantKey: `v${i}`, label: `v${i}`, pipeline: 'test', model: 'sim', sampleIndex: 0, params: {} })), stages: plan,
    });
    // Results for most (variant, item) pairs: some missing, a mix of verdicts.
    const rows = items.flatMap((it) => variants.map((variantId, v) => ({ it, variantId, v }))).filter(({ it, v }) => (it.position + v) % 5 !== 0);
    await t.db.insertInto('item_results').values(rows.map(({ it, variantId, v }) => ({
      run_id: runId, variant_id: variantId, item_id: it.id, final_stage_key: 'x', correct: (it.position * (v + 1)) % 3 === 0, errored: false,
      reason: (it.position + v) % 4 === 0 ? 'pred-error: no such table' : 'result differs', predicted_sql: 'SELECT 1', difficulty: v === 1 ? 'hard' : 'easy',
      input_tokens: 1, output_tokens: 1, cost_usd: 0.01 * it.position, latency_ms: 10, simulated: true,
    }))).execute();
  });
  afterAll(async () => t.drop());

  const base: ItemResultFilter = { sort: 'item_id', order: 'asc', limit: 7, offset: 0 };
  const cases: Array<Partial<ItemResultFilter>> = [
    {}, { offset: 7 }, { offset: 63, limit: 20 }, { order: 'desc' }, { order: 'desc', offset: 10 },
    { variantId: variants[1] }, { correct: false, offset: 3 }, { category: 'sql-error' }, { difficulty: 'hard', order: 'desc' }, { dbId: 'db2', limit: 50 },
  ];

  it.each(cases)('walks to the same page as the join (%o)', async (c) => {
    const walked = await reports.itemResults(runId, { ...base, ...c });
    const joined = await reports.itemResults(runId, { ...base, ...c, q: '' });
    expect(walked.items.length).toBeGreaterThan(0);
    expect(walked).toEqual(joined);
  });

  it('pages in dataset position, then variant order', async () => {
    const { items, total } = await reports.itemResults(runId, { ...base, limit: 100 });
    expect(total).toBe(items.length);
    const positions = items.map((r) => 29 - Number(r.itemId.slice(4)) / 7);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(items.slice(0, 3).map((r) => r.itemId)).toEqual(['dev-203', 'dev-203', 'dev-196']);
  });
});
