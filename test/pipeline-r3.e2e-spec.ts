import { ensureBundledEncoderForTests } from '@sqlsweep/retrieval';
import { dryRunTotals, runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { runRow } from './support/stored-results';

// Generous: on a loaded shared machine worker start-up alone has taken minutes.
jest.setTimeout(900_000);

/** R3's Table 3 variants and the two few-shot baselines, 10 minibench dev items, real workers and the simulator. */
describe('R3 and the few-shot baselines end to end', () => {
  let e2e: E2eStack;
  let configFile: string;

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 2, env: { SQLSWEEP_ENCODER_DIR: ensureBundledEncoderForTests() } });
    configFile = e2e.writeFile('r3-e2e.yaml', [
      'name: r3-e2e', 'dataset: minibench', 'split: dev', 'items: { limit: 10 }', 'models: [sim-strong]', 'pipelines:',
      '  - { pipeline: r3, label: r3-full }',
      '  - { pipeline: r3, label: r3-no-sl, grid: { schemaLinking: [false] } }',
      '  - { pipeline: r3, label: r3-no-qd, grid: { decomposition: [false] } }',
      '  - { pipeline: r3, label: r3-no-rag, grid: { rag: [false] } }',
      '  - { pipeline: fixed-few-shot, grid: { shots: [3] } }',
      '  - { pipeline: random-few-shot, grid: { shots: [3] } }',
      'seed: 7', '',
    ].join('\n'));
  });
  afterAll(() => e2e?.stop());

  // Counted from the stage graphs, per item: gold 1, evaluate 6; r3.rag 1 (shared by full, no-sl, no-qd); r3.link 2
  // (full = no-qd, no-rag); r3.decompose 3 and r3.generate 3 (full, no-sl, no-rag); r3.generate-direct 1 (no-qd);
  // one selection per few-shot baseline and one few-shot.generate each.
  const ITEMS = 10;
  const expectedLlmCalls = ITEMS * (2 + 3 + 3 + 1 + 2);
  const expectedJobs = ITEMS * (1 + 6 + 1 + 2) + expectedLlmCalls;

  it('gives every item of every variant a result, with traces of every LLM stage and the per-stage metrics; a rerun reuses all', async () => {
    const dry = await e2e.cli(['run', configFile, '--dry-run']);
    expect(dry.code).toBe(0);
    const predicted = dryRunTotals(dry.stdout);
    expect(predicted).toMatchObject({ needed: expectedJobs, reused: 0, llmCalls: expectedLlmCalls });
    expect(predicted.inputTokens).toBeGreaterThan(expectedLlmCalls * 200);

    const run = await e2e.runSweep(configFile, 600_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stdout);

    expect(await e2e.db.selectFrom('stage_failures').select(['stage', 'error']).where('run_id', '=', runId).execute()).toEqual([]);
    const variants = await e2e.db.selectFrom('variants').select(['id', 'label']).where('run_id', '=', runId).execute();
    expect(variants).toHaveLength(6);
    const results = await e2e.db.selectFrom('item_results').selectAll().where('run_id', '=', runId).execute();
    const dev = await e2e.db.selectFrom('dataset_items').select('item_id').where('split', '=', 'dev').orderBy('position').limit(10).execute();
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

    const stages = await e2e.db.selectFrom('run_stages as s').innerJoin('stage_results as r', 'r.stage_key', 's.stage_key')
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

    const firstRun = await runRow(e2e.db, runId);
    expect(firstRun).toMatchObject({ status: 'done', stage_jobs: expectedJobs, reused_stages: 0 });
    const again = await e2e.runSweep(configFile);
    expect(again.code).toBe(0);
    const secondRun = await runRow(e2e.db, runIdOf(again.stdout));
    expect(secondRun).toMatchObject({ status: 'done', stage_jobs: 0, reused_stages: expectedJobs });
  });
});
