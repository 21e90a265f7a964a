import { sql } from 'kysely';
// Test helpers build on db; this spec-only import must not make the project graph circular.
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { RATE_SAMPLE_RESULTS, RunInsightRepository } from './run-insight.repository';
import { RunRepository } from './run.repository';

describe('RunInsightRepository.completionRates: the results a run computed lately, counted up to a bound', () => {
  let t: TestDatabase;
  let insight: RunInsightRepository;
  let runId: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    insight = new RunInsightRepository(t.db);
    const dataset = await t.db.insertInto('datasets').values({ name: 'rates' }).returning('id').executeTakeFirstOrThrow();
    const version = await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'r', format: 'minibench', source_path: '-', item_count: 1 })
      .returning('id').executeTakeFirstOrThrow();
    runId = await new RunRepository(t.db).createRun({
      sweep: { name: 'rates', source: '-', config: {}, configHash: 'rates' }, datasetVersionId: version.id, priority: 'interactive',
      itemCount: 1, stageJobs: 0, reusedStages: 0, simulated: true, variants: [], stages: [],
    });
    await new Promise((r) => setTimeout(r, 50)); // the results below are all computed after the run was created
  });
  afterAll(async () => t.drop());

  /** `n` results of the run, the latest now and each earlier one 10 µs before the next; returns their creation times, latest first. */
  async function computed(n: number, from: number): Promise<Date[]> {
    const { rows } = await sql<{ created_at: Date }>`
      INSERT INTO stage_results (stage_key, stage, output, simulated, machine, run_id, created_at)
      SELECT lpad(to_hex(${from}::int + i), 64, '0'), 's', '{}'::jsonb, true, 'test', ${runId}::uuid, clock_timestamp() - i * interval '10 microseconds'
      FROM generate_series(0, ${n}::int - 1) i
      RETURNING created_at`.execute(t.db);
    return rows.map((r) => r.created_at).sort((a, b) => b.getTime() - a.getTime());
  }

  it('counts every result since the first when there are few, and times the window from the first', async () => {
    const times = await computed(5, 0);
    const rates = await insight.completionRates(runId, 30);
    expect(rates.completedInWindow).toBe(5);
    expect(rates.windowStart).toEqual(times.at(-1));
    expect(rates.now.getTime()).toBeGreaterThanOrEqual(times[0]!.getTime());
  });

  it('counts only the latest results past the bound, and shortens the window to their span', async () => {
    await computed(RATE_SAMPLE_RESULTS + 50, 1_000);
    const rates = await insight.completionRates(runId, 30);
    expect(rates.completedInWindow).toBe(RATE_SAMPLE_RESULTS);
    const { rows } = await sql<{ created_at: Date }>`SELECT created_at FROM stage_results WHERE run_id = ${runId} ORDER BY created_at DESC`.execute(t.db);
    expect(rows).toHaveLength(RATE_SAMPLE_RESULTS + 55);
    expect(rates.windowStart).toEqual(rows[RATE_SAMPLE_RESULTS - 1]!.created_at);
  });
});
