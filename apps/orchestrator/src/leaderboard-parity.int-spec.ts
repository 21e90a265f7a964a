import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LeaderboardRowDto } from '@sqlsweep/contracts';
import { ReportRepository, RunRepository, StageRepository, type PlannedStage } from '@sqlsweep/db';
import { leaderboard } from '@sqlsweep/orchestration';
// nx-ignore-next-line
import { createTestDatabase, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';
import { startTestApi, type TestApi } from './testing/test-api';

const token = 'parity-token-0123456789';
const repoRoot = join(__dirname, '..', '..', '..');

/**
 * `sqlsweep status` and GET /api/runs/{runId}/leaderboard show one leaderboard: the API's body is the JSON of
 * `leaderboard` (libs/orchestration reports) byte for byte, and the CLI's table holds those very rows, in that order,
 * each cell the API's value.
 */
describe('one leaderboard for the CLI and the API', () => {
  let t: TestDatabase;
  let api: TestApi;
  let url: string;
  let runId: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    runId = await finishedRun(t);
    api = await startTestApi(t, { SQLSWEEP_API_TOKEN: token });
    ({ url } = api);
  });
  afterAll(async () => {
    await api?.app.close();
    await t?.drop();
  });

  it('returns the JSON of the one function and prints the same rows', async () => {
    const res = await fetch(`${url}/api/runs/${runId}/leaderboard`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toBe(JSON.stringify(await leaderboard(new ReportRepository(t.db), runId)));
    const rows = JSON.parse(body) as LeaderboardRowDto[];
    expect(rows.map((r) => [r.label, r.items, r.correct, r.parseFailures, r.ex])).toEqual([['t=0.0', 3, 2, 0, (100 * 2) / 3], ['t=0.7', 3, 1, 1, 100 / 3]]);

    const { stdout } = await promisify(execFile)(process.execPath, [join(repoRoot, 'bin', 'sqlsweep'), 'status', runId], {
      cwd: repoRoot, env: { ...process.env, DATABASE_URL: t.url, REDIS_URL: testRedisUrl(), SQLSWEEP_QUEUE_PREFIX: api.queuePrefix },
    });
    // The table after its title, header and rule: each cell as the API gives it (rounded as the CLI shows it).
    const [title, header, , ...printed] = stdout.slice(stdout.indexOf('Leaderboard')).trimEnd().split('\n');
    expect(title).toBe('Leaderboard  [simulated: answers come from the LLM simulator, not a real model]');
    expect(header.trim().split(/\s{2,}/)).toEqual(['variant', 'EX %', 'scorer', 'correct', 'parse failures', 'items', 'errors', 'tokens in', 'tokens out', 'cost $', 'ms/item']);
    expect(printed.map((line) => line.trim().split(/\s{2,}/))).toEqual(rows.map((r) => [
      r.label, r.ex.toFixed(1), r.scorer ?? '-', r.correct, r.parseFailures, r.items, r.errors, r.inputTokens, r.outputTokens, r.costUsd.toFixed(4), r.meanLatencyMs.toFixed(0),
    ].map(String)));
  }, 120_000);
});

/**
 * A finished run as the workers leave one: two variants over three items, each item's final stage stored, then
 * item results materialized and the run closed (run_summaries written, status done) by the run repository.
 */
async function finishedRun(t: TestDatabase): Promise<string> {
  const dataset = await t.db.insertInto('datasets').values({ name: 'parity' }).returning('id').executeTakeFirstOrThrow();
  const version = await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'parity', format: 'minibench', source_path: '-', item_count: 3 })
    .returning('id').executeTakeFirstOrThrow();
  const items = [{ id: 'q1', difficulty: 'simple' }, { id: 'q2', difficulty: 'simple' }, { id: 'q3', difficulty: 'challenging' }];
  await t.db.insertInto('dataset_items').values(items.map((item, position) => ({
    version_id: version.id, item_id: item.id, position, split: 'dev' as const, db_id: 'shop', question: `question ${item.id}`, evidence: null,
    gold_sql: 'SELECT 1', difficulty: item.difficulty, hardness: null,
  }))).execute();
  const variants = [0, 0.7].map((temperature, i) => ({
    id: randomUUID(), variantKey: `v${i}`, label: `t=${temperature.toFixed(1)}`, pipeline: 'zero-shot', model: 'sim', sampleIndex: 0, params: { temperature },
  }));
  const key = (v: number, item: string) => `${v}-${item}`.padEnd(64, '0');
  const stages = variants.flatMap((v, vi) => items.map((item): PlannedStage => ({
    variantId: v.id, itemId: item.id, stage: 'evaluate', stageKey: key(vi, item.id), role: 'sql', params: {}, inputs: {}, isFinal: true,
  })));
  const runs = new RunRepository(t.db);
  const runId = await runs.createRun({
    sweep: { name: 'parity', source: '-', config: {}, configHash: 'parity' }, datasetVersionId: version.id, priority: 'interactive',
    itemCount: items.length, stageJobs: stages.length, reusedStages: 0, simulated: true, variants, stages,
  });
  // Variant 0 gets q1 and q2 right, variant 1 only q1 (its answer to q3 held no SQL); tokens, cost and latency differ per item.
  const correct = [['q1', 'q2'], ['q1']];
  const unparsed = [[], ['q3']];
  await new StageRepository(t.db).saveResults(stages.map((s, i) => {
    const vi = variants.findIndex((v) => v.id === s.variantId);
    return {
      stageKey: s.stageKey, stage: s.stage, simulated: true, machine: 'test', runId, variantId: s.variantId,
      inputTokens: 100 + i, outputTokens: 10 + i, costUsd: 0.0013 * (i + 1), latencyMs: 250 + 37 * i,
      output: unparsed[vi].includes(s.itemId)
        ? { correct: false, errored: false, parseFailed: true, reason: 'parse failure: no SQL', predictedSql: null, scorer: 'bird-ex@2', metrics: { ves: 0 } }
        : { correct: correct[vi].includes(s.itemId), errored: false, parseFailed: false, reason: 'compared', predictedSql: 'SELECT 1', scorer: 'bird-ex@2', metrics: { ves: 0.5 + i / 10 } },
    };
  }));
  await runs.materializeItemResults([runId]);
  if (!(await runs.finalizeIfComplete(runId))) throw new Error('the parity run did not finish');
  return runId;
}
