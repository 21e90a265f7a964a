import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';

jest.setTimeout(500_000);

describe('RB-SQL end to end on minibench dev through real workers and the simulator', () => {
  let e2e: E2eStack;
  let config: string;

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 2 });
    // The full method and its skeleton-organization ablation with random shots: every stage kind runs.
    config = e2e.writeFile('rb-sql.yaml', [
      'name: rb-sql-e2e',
      'dataset: minibench',
      'split: dev',
      'items: { limit: 10 }',
      'models: [sim-weak]',
      'pipelines:',
      '  - pipeline: rb-sql',
      '    label: full',
      '    grid: { theta: [4], mu: [2], shots: [2], maxCorrections: [2] }',
      '  - pipeline: rb-sql',
      '    label: plain-random',
      '    grid: { theta: [4], mu: [2], shots: [2], maxCorrections: [2], skeletonOrganization: [false], shotSelection: [random] }',
      'seed: 7',
      '',
    ].join('\n'));
  });
  afterAll(() => e2e?.stop());

  it('gives every item of both variants a result, with stage traces, linking metrics and shots', async () => {
    const run = await e2e.runSweep(config, 450_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stdout);

    const variants = await e2e.db.selectFrom('variants').select(['id', 'label']).where('run_id', '=', runId).execute();
    expect(variants).toHaveLength(2);
    const results = await e2e.db.selectFrom('item_results').selectAll().where('run_id', '=', runId).execute();
    expect(results).toHaveLength(20);
    expect(results.filter((r) => r.errored)).toEqual([]);
    for (const r of results) {
      expect(r.metrics['rb-sql.linking.table.recall']).toBeGreaterThanOrEqual(0);
      expect(r.metrics['rb-sql.linking.table.recall']).toBeLessThanOrEqual(1);
      expect(r.metrics['rb-sql.tables.kept']).toBeGreaterThanOrEqual(1);
      expect(r.metrics['rb-sql.correct.round1']).toBeGreaterThanOrEqual(0);
    }
    // The strong lexical cue of minibench (table names in the question) should let TR find most gold tables.
    const recall = results.reduce((s, r) => s + r.metrics['rb-sql.tables.recall'], 0) / results.length;
    expect(recall).toBeGreaterThan(0.5);

    const stageRows = async (stage: string) => e2e.db.selectFrom('stage_results').select(['stage', 'trace', 'output']).where('stage', '=', stage).execute();
    // TR, CR and the skeleton retriever are shared by both variants: one per item each.
    expect(await stageRows('rb-sql.tables')).toHaveLength(10);
    expect(await stageRows('rb-sql.columns')).toHaveLength(10);
    const shots = await stageRows('rb-sql.shots');
    expect(shots).toHaveLength(20);
    for (const row of shots) {
      const out = row.output as { selection: string; shots: Array<{ itemId: string; skeleton: string }> };
      expect(out.shots).toHaveLength(2);
      for (const s of out.shots) {
        expect(s.itemId).toMatch(/^train-/);
        expect(s.skeleton).toMatch(/SELECT/);
      }
    }
    for (const stage of ['rb-sql.decompose-1', 'rb-sql.decompose-2', 'rb-sql.generate', 'rb-sql.generate-plain']) {
      const rows = await stageRows(stage);
      expect(rows).toHaveLength(10);
      for (const r of rows) {
        const trace = r.trace as { prompt: Array<{ content: string }>; response: string };
        expect(trace.prompt.length).toBe(2);
        expect(trace.response.length).toBeGreaterThan(0);
      }
    }
    const organized = await stageRows('rb-sql.generate');
    const firstPrompt = (organized[0].trace as { prompt: Array<{ content: string }> }).prompt[1].content;
    expect(firstPrompt).toMatch(/### Example 1\n[\s\S]*Sub-questions:\n1\. [\s\S]*SQL skeleton: SELECT/);
    expect(organized.every((r) => (r.output as { sql: string | null }).sql !== null)).toBe(true);
    // Correction rounds only call the LLM when the check found an error or an empty result.
    const checks = await stageRows('rb-sql.check-1');
    const corrections = await stageRows('rb-sql.correct-1');
    const needed = checks.filter((c) => (c.output as { needsCorrection: boolean }).needsCorrection).length;
    expect(corrections.filter((c) => c.trace !== null && (c.trace as { prompt?: unknown }).prompt !== undefined)).toHaveLength(needed);
  });
});
