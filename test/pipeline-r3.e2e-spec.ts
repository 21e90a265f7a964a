import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBundledEncoderForTests } from '@sqlsweep/retrieval';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { runCli, startSimulator, startWorkers, type Proc } from './support/e2e';

// Generous: on a loaded shared machine worker start-up alone has taken minutes.
jest.setTimeout(900_000);

/** R3's Table 3 variants and the two few-shot baselines, 10 minibench dev items, real workers and the simulator. */
describe('R3 and the few-shot baselines end to end', () => {
  let t: TestDatabase;
  let sim: Proc & { url: string };
  let workers: Proc[] = [];
  let env: NodeJS.ProcessEnv;
  let configFile: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    sim = await startSimulator();
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-r3-e2e-'));
    env = {
      DATABASE_URL: t.url, SQLSWEEP_QUEUE_PREFIX: testQueuePrefix(), SQLSWEEP_LLM_SIM_URL: sim.url,
      SQLSWEEP_DATA_DIR: dir, SQLSWEEP_ENCODER_DIR: ensureBundledEncoderForTests(),
    };
    configFile = join(dir, 'r3-e2e.yaml');
    writeFileSync(configFile, [
      'name: r3-e2e', 'dataset: minibench', 'split: dev', 'items: { limit: 10 }', 'models: [sim-strong]', 'pipelines:',
      '  - { pipeline: r3, label: r3-full }',
      '  - { pipeline: r3, label: r3-no-sl, grid: { schemaLinking: [false] } }',
      '  - { pipeline: r3, label: r3-no-qd, grid: { decomposition: [false] } }',
      '  - { pipeline: r3, label: r3-no-rag, grid: { rag: [false] } }',
      '  - { pipeline: fixed-few-shot, grid: { shots: [3] } }',
      '  - { pipeline: random-few-shot, grid: { shots: [3] } }',
      'seed: 7', '',
    ].join('\n'));
    const added = await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    workers = startWorkers(2, env);
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await sim?.stop();
    await t?.drop();
  });

  /** `total  <jobs needed>  <reused>  <LLM calls> <input tokens>` from the dry-run's stage table. */
  function dryRunTotals(stdout: string): { needed: number; reused: number; llmCalls: number; inputTokens: number } {
    const m = /^total\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(stdout);
    if (!m) throw new Error(`no total line in the dry-run output:\n${stdout}`);
    return { needed: Number(m[1]), reused: Number(m[2]), llmCalls: Number(m[3]), inputTokens: Number(m[4]) };
  }

  // Counted from the stage graphs, per item: gold 1, evaluate 6; r3.rag 1 (shared by full, no-sl, no-qd); r3.link 2
  // (full = no-qd, no-rag); r3.decompose 3 and r3.generate 3 (full, no-sl, no-rag); r3.generate-direct 1 (no-qd);
  // one selection per few-shot baseline and one few-shot.generate each.
  const ITEMS = 10;
  const expectedLlmCalls = ITEMS * (2 + 3 + 3 + 1 + 2);
  const expectedJobs = ITEMS * (1 + 6 + 1 + 2) + expectedLlmCalls;

  it('gives every item of every variant a result, with traces of every LLM stage and the per-stage metrics; a rerun reuses all', async () => {
    const dry = await runCli(['run', configFile, '--dry-run'], env);
    expect(dry.code).toBe(0);
    const predicted = dryRunTotals(dry.stdout);
    expect(predicted).toMatchObject({ needed: expectedJobs, reused: 0, llmCalls: expectedLlmCalls });
    expect(predicted.inputTokens).toBeGreaterThan(expectedLlmCalls * 200);

    const run = await runCli(['run', configFile, '--workers', '0', '--no-progress'], env, 600_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const runId = /run ([0-9a-f-]{36}) created/.exec(run.stdout)![1];

    expect(await t.db.selectFrom('stage_failures').select(['stage', 'error']).where('run_id', '=', runId).execute()).toEqual([]);
    const variants = await t.db.selectFrom('variants').select(['id', 'label']).where('run_id', '=', runId).execute();
    expect(variants).toHaveLength(6);
    const results = await t.db.selectFrom('item_results').selectAll().where('run_id', '=', runId).execute();
    const dev = await t.db.selectFrom('dataset_items').select('item_id').where('split', '=', 'dev').orderBy('position').limit(10).execute();
    for (const v of variants) {
      const mine = results.filter((r) => r.variant_id === v.id);
      expect(mine.map((r) => r.item_id).sort()).toEqual(dev.map((d) => d.item_id).sort());
      expect(mine.every((r) => r.simulated && !r.errored)).toBe(true);
      expect(mine.filter((r) => r.predicted_sql !== null).length).toBe(10);
    }
    const labelOf = (variantId: string) => variants.find((v) => v.id === variantId)!.label;
    const linked = results.filter((r) => /^r3-(full|no-qd|no-rag)/.test(labelOf(r.variant_id)));
    expect(linked.every((r) => typeof r.metrics['linking.table.recall'] === 'number' && typeof r.metrics['linking.column.precision'] === 'number')).toBe(true);
    expect(results.filter((r) => labelOf(r.variant_id).startsWith('r3-no-sl')).every((r) => !('linking.table.recall' in r.metrics))).toBe(true);
    expect(results.filter((r) => labelOf(r.variant_id).startsWith('r3-full')).every((r) => r.metrics['rag.chunks'] === 6)).toBe(true);
    // The strong simulated model answers most items right through every stage of the chain.
    expect(results.filter((r) => labelOf(r.variant_id).startsWith('r3-full') && r.correct).length).toBeGreaterThanOrEqual(6);

    const stages = await t.db.selectFrom('run_stages as s').innerJoin('stage_results as r', 'r.stage_key', 's.stage_key')
      .select(['s.stage', 's.stage_key', 'r.trace', 'r.output']).where('s.run_id', '=', runId).execute();
    const distinct = (stage: string) => new Map(stages.filter((s) => s.stage === stage).map((s) => [s.stage_key, s]));
    // One RAG retrieval per item shared by three variants; linking shared by full and no-qd (same prompt), not no-rag.
    expect(distinct('r3.rag').size).toBe(10);
    expect(distinct('r3.link').size).toBe(20);
    expect(distinct('r3.decompose').size).toBe(30);
    expect(distinct('r3.generate').size).toBe(30);
    expect(distinct('r3.generate-direct').size).toBe(10);
    expect(distinct('fixed-few-shot.select').size).toBe(10);
    expect(distinct('few-shot.generate').size).toBe(20);

    for (const stage of ['r3.link', 'r3.decompose', 'r3.generate', 'r3.generate-direct', 'few-shot.generate']) {
      for (const s of distinct(stage).values()) {
        const trace = s.trace as { prompt: Array<{ role: string; content: string }>; response: string };
        expect(trace.prompt.length).toBeGreaterThan(0);
        expect(trace.response.length).toBeGreaterThan(0);
      }
    }
    for (const s of distinct('r3.link').values()) expect((s.output as { fallback: boolean }).fallback).toBe(false);
    for (const s of distinct('r3.decompose').values()) expect((s.output as { parseError?: string }).parseError).toBeUndefined();
    for (const s of distinct('r3.generate').values()) expect((s.trace as { response: string }).response).toMatch(/^```sql\n/);
    const fixedShots = new Set([...distinct('fixed-few-shot.select').values()].map((s) => JSON.stringify((s.output as { shots: unknown }).shots)));
    expect(fixedShots.size).toBe(1);
    const randomShots = new Set([...distinct('random-few-shot.select').values()].map((s) => JSON.stringify((s.output as { shots: unknown }).shots)));
    expect(randomShots.size).toBeGreaterThan(1);

    const firstRun = await t.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
    expect(firstRun).toMatchObject({ status: 'done', stage_jobs: expectedJobs, reused_stages: 0 });
    const again = await runCli(['run', configFile, '--workers', '0', '--no-progress'], env);
    expect(again.code).toBe(0);
    const secondRun = await t.db.selectFrom('runs').selectAll().where('id', '=', /run ([0-9a-f-]{36}) created/.exec(again.stdout)![1]).executeTakeFirstOrThrow();
    expect(secondRun).toMatchObject({ status: 'done', stage_jobs: 0, reused_stages: expectedJobs });
  });
});
