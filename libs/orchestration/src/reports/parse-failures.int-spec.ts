import { randomUUID } from 'node:crypto';
import { queryRows, ReportRepository, RunRepository, StageRepository, type PlannedStage } from '@sqlsweep/db';
import type { EvaluateOutput } from '@sqlsweep/pipelines';
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { compareVariants } from './comparison';
import { exportRun } from './export-run';
import { leaderboard } from './leaderboard';

type Verdict = 'correct' | 'wrong' | 'parse' | 'errored';

/** The evaluate stage's output for each kind of verdict (the shapes `evaluateStage` writes). */
function evaluateOutput(verdict: Verdict): EvaluateOutput {
  const base = { scorer: 'bird-ex@2', metrics: { ves: 0 } };
  switch (verdict) {
    case 'correct': return { ...base, correct: true, errored: false, parseFailed: false, reason: 'match', predictedSql: 'SELECT 1', predicted: { status: 'ok', rows: 1 } };
    case 'wrong': return { ...base, correct: false, errored: false, parseFailed: false, reason: 'result mismatch', predictedSql: 'SELECT 2', predicted: { status: 'ok', rows: 1 } };
    case 'parse': return {
      ...base, correct: false, errored: false, parseFailed: true, reason: 'parse failure: no SQL in the answer', predictedSql: null,
      predicted: { status: 'error', message: 'not executed: the answer held no SQL (no SQL in the answer)' },
    };
    case 'errored': return {
      ...base, correct: false, errored: true, parseFailed: false, reason: 'gold invalid (timeout): gold SQL timed out', predictedSql: 'SELECT 1',
      predicted: { status: 'error', message: 'not executed: the gold result cannot be compared' },
    };
  }
}

/**
 * A parse failure is its own verdict all the way to the read model (real Postgres; the evaluate outputs stored as the
 * workers store them, then item results materialized and the run closed by the run repository): counted apart from
 * wrong SQL in the leaderboard and the run summaries, filterable among item results, a column of the exports and
 * counted per side in comparisons, while EX still counts it as not correct.
 */
describe('parse failures in the reports', () => {
  let t: TestDatabase;
  let repo: ReportRepository;
  let runId: string;
  const variants = ['a', 'b'].map((name) => ({ id: randomUUID(), variantKey: name, label: name, pipeline: 'zero-shot', model: 'sim', sampleIndex: 0, params: {} }));
  const [a, b] = variants;
  // a: one of each verdict; b: two parse failures and two correct.
  const verdicts: Record<string, Verdict[]> = { [a.id]: ['correct', 'wrong', 'parse', 'errored'], [b.id]: ['correct', 'parse', 'parse', 'correct'] };
  const items = ['q1', 'q2', 'q3', 'q4'];

  beforeAll(async () => {
    t = await createTestDatabase();
    repo = new ReportRepository(t.db);
    const dataset = await t.db.insertInto('datasets').values({ name: 'parse-failures' }).returning('id').executeTakeFirstOrThrow();
    const version = await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'parse-failures', format: 'bird', source_path: '-', item_count: items.length })
      .returning('id').executeTakeFirstOrThrow();
    await t.db.insertInto('dataset_items').values(items.map((itemId, position) => ({
      version_id: version.id, item_id: itemId, position, split: 'dev' as const, db_id: 'shop', question: `question ${itemId}`, evidence: null,
      gold_sql: 'SELECT 1', difficulty: 'simple', hardness: null,
    }))).execute();
    const stages = variants.flatMap((v) => items.map((itemId): PlannedStage => ({
      variantId: v.id, itemId, stage: 'evaluate', stageKey: `${v.variantKey}-${itemId}`.padEnd(64, '0'), role: 'sql', params: {}, inputs: {}, isFinal: true,
    })));
    const runs = new RunRepository(t.db);
    runId = await runs.createRun({
      sweep: { name: 'parse-failures', source: '-', config: {}, configHash: 'parse-failures' }, datasetVersionId: version.id, priority: 'interactive',
      itemCount: items.length, stageJobs: stages.length, reusedStages: 0, simulated: true, variants, stages,
    });
    await new StageRepository(t.db).saveResults(stages.map((s) => ({
      stageKey: s.stageKey, stage: s.stage, simulated: true, machine: 'test', runId, variantId: s.variantId,
      inputTokens: 10, outputTokens: 5, costUsd: 0.001, latencyMs: 100,
      output: evaluateOutput(verdicts[s.variantId][items.indexOf(s.itemId)]),
    })));
    await runs.materializeItemResults([runId]);
    if (!(await runs.finalizeIfComplete(runId))) throw new Error('the parse-failures run did not finish');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('counts parse failures beside EX in the leaderboard, apart from wrong SQL and errors', async () => {
    const rows = await leaderboard(repo, runId);
    expect(rows.map((r) => ({ label: r.label, items: r.items, correct: r.correct, parseFailures: r.parseFailures, errors: r.errors, ex: r.ex }))).toEqual([
      { label: 'b', items: 4, correct: 2, parseFailures: 2, errors: 0, ex: 50 },
      // a's one wrong SQL is in none of the counts but `items`.
      { label: 'a', items: 4, correct: 1, parseFailures: 1, errors: 1, ex: 25 },
    ]);
  });

  it('writes the count into the run summaries', async () => {
    const summaries = await queryRows<{ variant_id: string; parse_failures: number; errors: number; correct: number }>(t.db)`
      SELECT variant_id, parse_failures, errors, correct FROM run_summaries WHERE run_id = ${runId}`;
    expect(Object.fromEntries(summaries.map((s) => [s.variant_id, [s.correct, s.parse_failures, s.errors]]))).toEqual({ [a.id]: [1, 1, 1], [b.id]: [2, 2, 0] });
  });

  it('filters item results by the verdict, and shows it on each', async () => {
    const failed = await repo.itemResults(runId, { variantId: a.id, parseFailed: true, sort: 'item_id', order: 'asc', limit: 10, offset: 0 });
    expect(failed.items.map((i) => [i.itemId, i.parseFailed, i.correct, i.errored, i.predictedSql])).toEqual([['q3', true, false, false, null]]);
    const others = await repo.itemResults(runId, { variantId: a.id, parseFailed: false, sort: 'item_id', order: 'asc', limit: 10, offset: 0 });
    expect(others.items.map((i) => [i.itemId, i.parseFailed])).toEqual([['q1', false], ['q2', false], ['q4', false]]);
  });

  it('exports the verdict as a CSV column and a JSONL field', async () => {
    const csv = (await exportRun(repo, runId, { format: 'csv', variantId: a.id })).body.trimEnd().split('\n');
    const header = csv[0].split(',');
    const column = header.indexOf('parseFailed');
    expect(column).toBeGreaterThan(header.indexOf('errored'));
    expect(csv.slice(1).map((line) => line.split(',')[column])).toEqual(['false', 'false', 'true', 'false']);
    const jsonl = (await exportRun(repo, runId, { format: 'jsonl' })).body.trimEnd().split('\n').map((line) => JSON.parse(line) as { variantLabel: string; itemId: string; parseFailed: boolean });
    expect(jsonl.filter((r) => r.parseFailed).map((r) => `${r.variantLabel}/${r.itemId}`).sort()).toEqual(['a/q3', 'b/q2', 'b/q3']);
  });

  it('counts each side\'s parse failures over the paired items of a comparison', async () => {
    const c = await compareVariants(repo, { runA: runId, variantA: a.id, runB: runId, variantB: b.id, resamples: 100, seed: 1 });
    expect([c.a.parseFailures, c.b.parseFailures]).toEqual([1, 2]);
  });
});
