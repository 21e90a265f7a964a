import { Queue } from 'bullmq';
import { queueKeyPrefix } from '@sqlsweep/queue';
import { replicaPathOf } from '@sqlsweep/datasets';
import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { birdCorrect } from './support/independent-ex';
import { runRow, storedStageResults } from './support/stored-results';

jest.setTimeout(400_000);

const queues = ['stage-llm', 'stage-sql', 'stage-retrieval', 'advance'];

describe('a sweep end to end: 2 variants x 60 minibench dev items', () => {
  let e2e: E2eStack;

  beforeAll(async () => { e2e = await startE2eStack({ workers: 2 }); });
  afterAll(() => e2e?.stop());

  async function jobCounts(): Promise<number> {
    let total = 0;
    for (const name of queues) {
      const q = new Queue(name, { connection: { url: process.env.REDIS_URL }, prefix: queueKeyPrefix(e2e.prefix, name) });
      const c = await q.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized');
      total += Object.values(c).reduce((a, b) => a + b, 0);
      await q.close();
    }
    return total;
  }

  it('gives every item exactly one result whose EX an independent recomputation confirms, then reuses everything', async () => {
    const first = await e2e.runSweep('test/fixtures/zero-shot-sweep.yaml');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Leaderboard {2}\[simulated/);
    const runId = runIdOf(first.stdout);

    const dev = await e2e.db.selectFrom('dataset_items').select('item_id').where('split', '=', 'dev').orderBy('position').limit(60).execute();
    const variants = await e2e.db.selectFrom('variants').select(['id', 'label']).where('run_id', '=', runId).execute();
    expect(variants).toHaveLength(2);
    const results = await e2e.db
      .selectFrom('item_results as r')
      .innerJoin('runs', 'runs.id', 'r.run_id')
      .innerJoin('dataset_items as i', (j) => j.onRef('i.version_id', '=', 'runs.dataset_version_id').onRef('i.item_id', '=', 'r.item_id'))
      .innerJoin('dataset_databases as d', (j) => j.onRef('d.version_id', '=', 'i.version_id').onRef('d.db_id', '=', 'i.db_id'))
      .select(['r.variant_id', 'r.item_id', 'r.correct', 'r.errored', 'r.predicted_sql', 'r.simulated', 'i.gold_sql', 'd.checksum'])
      .where('r.run_id', '=', runId)
      .execute();
    expect(results).toHaveLength(120);
    for (const v of variants) {
      expect(results.filter((r) => r.variant_id === v.id).map((r) => r.item_id).sort()).toEqual(dev.map((d) => d.item_id).sort());
    }
    expect(results.every((r) => r.simulated && !r.errored)).toBe(true);

    // On the replica `datasets add` made in the stack's data folder (named by the database's checksum).
    const disagreements = results.filter((r) => birdCorrect(replicaPathOf(e2e.dataDir, r.checksum), r.gold_sql, r.predicted_sql) !== r.correct);
    expect(disagreements).toEqual([]);
    const summaries = await e2e.db.selectFrom('run_summaries').selectAll().where('run_id', '=', runId).execute();
    for (const s of summaries) {
      const mine = results.filter((r) => r.variant_id === s.variant_id);
      expect(s.ex).toBeCloseTo((100 * mine.filter((r) => r.correct).length) / mine.length, 6);
    }
    // The strong simulated model should beat the weak one on 60 items: a sanity check of the whole chain.
    const ex = Object.fromEntries(summaries.map((s) => [variants.find((v) => v.id === s.variant_id)!.label.split(' ')[1], s.ex]));
    expect(ex['sim-strong']).toBeGreaterThan(ex['sim-weak']);

    const storedBefore = await storedStageResults(e2e.db);
    const jobsBefore = await jobCounts();
    const second = await e2e.runSweep('test/fixtures/zero-shot-sweep.yaml');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/total\s+0\s+300/);
    const secondRun = await runRow(e2e.db, runIdOf(second.stdout));
    expect(secondRun).toMatchObject({ status: 'done', stage_jobs: 0, reused_stages: 300 });
    expect(await jobCounts()).toBe(jobsBefore);
    expect(await storedStageResults(e2e.db)).toBe(storedBefore);
    const secondResults = await e2e.db.selectFrom('item_results').select(['variant_id', 'item_id', 'correct']).where('run_id', '=', secondRun.id).execute();
    expect(secondResults).toHaveLength(120);
    expect(secondResults.filter((r) => r.correct).length).toBe(results.filter((r) => r.correct).length);
  });
});
