import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Client } from 'pg';
// Test helpers build on db; this spec-only import must not make the project graph circular.
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { ReportRepository } from './report.repository';
import { RunRepository, type PlannedStage } from './run.repository';
import { StageRepository } from './stage.repository';

const key = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0').slice(0, 64);

/** The counts the tallies replace, straight from the rows (the queries reports ran before). */
async function countedStageProgress(t: TestDatabase, runId: string) {
  const { rows } = await sql<{ stage: string; planned: number; done: number; failed: number }>`
    SELECT rs.stage, count(DISTINCT rs.stage_key)::int AS planned,
      count(DISTINCT rs.stage_key) FILTER (WHERE r.stage_key IS NOT NULL)::int AS done,
      count(DISTINCT rs.stage_key) FILTER (WHERE f.stage_key IS NOT NULL)::int AS failed
    FROM run_stages rs LEFT JOIN stage_results r ON r.stage_key = rs.stage_key
    LEFT JOIN stage_failures f ON f.run_id = rs.run_id AND f.stage_key = rs.stage_key
    WHERE rs.run_id = ${runId} GROUP BY rs.stage ORDER BY rs.stage`.execute(t.db);
  return rows;
}

async function countedScores(t: TestDatabase, runId: string) {
  const { rows } = await sql<{ variantId: string; items: number; correct: number; errors: number; costUsd: number; meanLatencyMs: number }>`
    SELECT variant_id AS "variantId", count(*)::int AS items, count(*) FILTER (WHERE correct)::int AS correct,
      count(*) FILTER (WHERE errored)::int AS errors, sum(cost_usd) AS "costUsd", avg(latency_ms) AS "meanLatencyMs"
    FROM item_results WHERE run_id = ${runId} GROUP BY variant_id ORDER BY variant_id`.execute(t.db);
  return rows;
}

describe('report tallies: progress and scores brought up to date from rows created since a watermark', () => {
  let t: TestDatabase;
  let reports: ReportRepository;
  let stages: StageRepository;
  let runId: string;
  const variants = [randomUUID(), randomUUID()].sort();

  beforeAll(async () => {
    t = await createTestDatabase();
    reports = new ReportRepository(t.db);
    stages = new StageRepository(t.db);
    const dataset = await t.db.insertInto('datasets').values({ name: 'tallies' }).returning('id').executeTakeFirstOrThrow();
    const version = await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 't', format: 'minibench', source_path: '-', item_count: 4 })
      .returning('id').executeTakeFirstOrThrow();
    // Per item: a retrieval stage shared by both variants, then a generation and a final stage of each variant.
    const plan: PlannedStage[] = [];
    for (let i = 0; i < 4; i++) {
      for (const [v, variantId] of variants.entries()) {
        plan.push({ variantId, itemId: `i${i}`, stage: 'a-retrieve', stageKey: key(`r${i}`), role: 'sql', params: {}, inputs: {}, isFinal: false });
        plan.push({ variantId, itemId: `i${i}`, stage: 'b-generate', stageKey: key(`g${v}${i}`), role: 'llm', params: {}, inputs: { r: key(`r${i}`) }, isFinal: false });
        plan.push({ variantId, itemId: `i${i}`, stage: 'c-evaluate', stageKey: key(`e${v}${i}`), role: 'sql', params: {}, inputs: { g: key(`g${v}${i}`) }, isFinal: true });
      }
    }
    runId = await new RunRepository(t.db).createRun({
      sweep: { name: 'tallies', source: '-', config: {}, configHash: 'tallies' }, datasetVersionId: version.id, priority: 'interactive',
      itemCount: 4, stageJobs: plan.length, reusedStages: 0, simulated: true,
      variants: variants.map((id, i) => ({ id, variantKey: `v${i}`, label: `v${i}`, pipeline: 'test', model: 'sim', sampleIndex: 0, params: {} })), stages: plan,
    });
  });
  afterAll(async () => t.drop());

  const save = (stage: string, ...names: string[]) =>
    stages.saveResults(names.map((n) => ({ stageKey: key(n), stage, output: {}, simulated: true, machine: 'test', runId, costUsd: 0.01 })));
  const itemResult = (variantId: string, item: string, correct: boolean, latencyMs: number) => t.db.insertInto('item_results').values({
    run_id: runId, variant_id: variantId, item_id: item, final_stage_key: 'x', correct, errored: false, reason: correct ? 'match' : 'pred-error: no such column',
    predicted_sql: 'SELECT 1', difficulty: 'easy', input_tokens: 10, output_tokens: 5, cost_usd: 0.5, latency_ms: latencyMs, simulated: true, metrics: JSON.stringify({ recall: correct ? 1 : 0.5 }),
  }).execute();

  it('agrees with counting the rows, before and after more results, and across refreshes', async () => {
    await save('a-retrieve', 'r0', 'r1');
    await itemResult(variants[0], 'i0', true, 100);
    expect(await reports.stageProgress(runId)).toEqual(await countedStageProgress(t, runId));
    await save('a-retrieve', 'r2');
    await save('b-generate', 'g00', 'g10', 'g01');
    await itemResult(variants[1], 'i0', false, 300);
    await itemResult(variants[0], 'i1', false, 200);
    // Right after the writes (within the watermark's margin) and again once they are past it: exact both times.
    expect(await reports.stageProgress(runId)).toEqual(await countedStageProgress(t, runId));
    await new Promise((r) => setTimeout(r, 1200));
    expect(await reports.stageProgress(runId)).toEqual(await countedStageProgress(t, runId));
    const { scores, byDifficulty, metrics } = await reports.variantScores(runId);
    expect(scores.map((s) => ({ variantId: s.variantId, items: s.items, correct: s.correct, errors: s.errors, costUsd: s.costUsd, meanLatencyMs: s.meanLatencyMs })).sort((a, b) => a.variantId.localeCompare(b.variantId)))
      .toEqual(await countedScores(t, runId));
    expect(byDifficulty).toEqual(expect.arrayContaining([{ variantId: variants[0], difficulty: 'easy', items: 2, correct: 1 }]));
    expect(metrics).toEqual(expect.arrayContaining([{ variantId: variants[0], metric: 'recall', mean: 0.75, items: 2 }]));
    expect((await reports.insight.categoryCounts(runId)).sort((a, b) => `${a.variantId}${a.category}`.localeCompare(`${b.variantId}${b.category}`)))
      .toEqual([{ variantId: variants[0], category: 'correct', n: 1 }, { variantId: variants[0], category: 'sql-error', n: 1 }, { variantId: variants[1], category: 'sql-error', n: 1 }]);
    expect((await reports.runProgress(runId)).itemsDone).toBe(3);
    expect((await reports.itemResults(runId, { sort: 'item_id', order: 'asc', limit: 10, offset: 0 })).total).toBe(3);
  });

  it('never loses a result whose transaction was open while the tallies moved on', async () => {
    const c = new Client({ connectionString: t.url });
    await c.connect();
    try {
      await c.query('BEGIN');
      await c.query(`INSERT INTO stage_results (stage_key, stage, output, machine) VALUES ($1, 'c-evaluate', '{}', 'test')`, [key('e00')]);
      await new Promise((r) => setTimeout(r, 2100)); // past the watermark's one-second margin and the 2 s between refreshes
      const before = await reports.stageProgress(runId);
      expect(before.find((s) => s.stage === 'c-evaluate')!.done).toBe(0);
      await c.query('COMMIT');
    } finally {
      await c.end();
    }
    await new Promise((r) => setTimeout(r, 2100));
    await reports.stageProgress(runId); // a refresh that moves the watermark past the committed row
    expect(await reports.stageProgress(runId)).toEqual(await countedStageProgress(t, runId));
    expect((await reports.stageProgress(runId)).find((s) => s.stage === 'c-evaluate')!.done).toBe(1);
  });

  it('answers a read while a refresh of the same run is held up, without waiting for it', async () => {
    await reports.stageProgress(runId); // this process has counted the run: later reads need not wait
    await new Promise((r) => setTimeout(r, 2100)); // past the 2 s between refreshes: the next read starts one
    await save('c-evaluate', 'e11');
    const blocker = new Client({ connectionString: t.url });
    await blocker.connect();
    try {
      // The refresh waits for this lock on the run's watermark; a read that waited for the refresh would hang here.
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM run_tally_marks WHERE run_id = $1 FOR UPDATE', [runId]);
      const read = await Promise.race([reports.stageProgress(runId), new Promise<'waited'>((r) => setTimeout(() => r('waited'), 1500))]);
      expect(read).not.toBe('waited');
      expect(read).toEqual(await countedStageProgress(t, runId));
      await blocker.query('COMMIT');
    } finally {
      await blocker.end();
    }
  });

  it('after another process forgot the tallies, a read that would not wait still answers in full', async () => {
    const other = new ReportRepository(t.db);
    const counted = await countedStageProgress(t, runId);
    expect(await other.stageProgress(runId)).toEqual(counted); // this process has counted the run: later reads need not wait
    await new Promise((r) => setTimeout(r, 2100)); // past the 2 s between refreshes: the next read starts one
    await reports.tallies.forget(runId);
    expect(await other.stageProgress(runId)).toEqual(counted);
  });

  it('counts a run once when many readers refresh it at the same time', async () => {
    await save('c-evaluate', 'e10', 'e01');
    await new Promise((r) => setTimeout(r, 1200));
    const other = new ReportRepository(t.db); // another process's repository: no shared in-flight refresh
    const all = await Promise.all([reports.stageProgress(runId), other.stageProgress(runId), new ReportRepository(t.db).stageProgress(runId)]);
    const counted = await countedStageProgress(t, runId);
    for (const p of all) expect(p).toEqual(counted);
    expect(await new ReportRepository(t.db).stageProgress(runId)).toEqual(counted);
  });
});
