import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';

jest.setTimeout(500_000);

type Trace = { prompt: Array<{ role: string; content: string }>; response: string } | null;

describe('UCS-SQL end to end on minibench dev through real workers and the simulator', () => {
  let e2e: E2eStack;
  let config: string;

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 2 });
    config = e2e.writeFile('ucs-sql.yaml', [
      'name: ucs-sql-e2e',
      'dataset: minibench',
      'split: dev',
      'items: { limit: 10 }',
      'models: [sim-strong]',
      'pipelines:',
      '  - pipeline: ucs-sql',
      '    grid:',
      '      shots: [2]',
      '      shotSelection: [ss-qe, fixed, dail]',
      '  - pipeline: zero-shot',
      '    grid: { temperature: [0.1] }',
      'seed: 7',
      '',
    ].join('\n'));
  });
  afterAll(() => e2e?.stop());

  const traced = async (stage: string) => e2e.db.selectFrom('stage_results').select(['stage', 'trace', 'output']).where('stage', '=', stage).execute();

  it('gives every item of every variant a result, with stage traces, linking metrics and memoized training extraction', async () => {
    const run = await e2e.runSweep(config, 450_000);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stdout);

    const variants = await e2e.db.selectFrom('variants').select(['id', 'label', 'pipeline']).where('run_id', '=', runId).execute();
    expect(variants).toHaveLength(4);
    const all = await e2e.db.selectFrom('item_results').selectAll().where('run_id', '=', runId).execute();
    expect(all).toHaveLength(40);
    expect(all.filter((r) => r.errored)).toEqual([]);
    const ucsSqlVariants = new Set(variants.filter((v) => v.pipeline === 'ucs-sql').map((v) => v.id));
    const results = all.filter((r) => ucsSqlVariants.has(r.variant_id));
    expect(results).toHaveLength(30);
    expect(results.filter((r) => r.correct).length).toBeGreaterThan(15);
    for (const r of results) {
      expect(r.metrics['linking.column.recall']).toBeGreaterThanOrEqual(0);
      expect(r.metrics['linking.column.precision']).toBeGreaterThanOrEqual(0);
      expect(r.metrics['prefilter.columns']).toBeGreaterThan(0);
      expect(r.metrics['prefilter.column.recall']).toBeGreaterThanOrEqual(0);
      expect(r.metrics['prefilter.column.precision']).toBeGreaterThan(0);
    }
    const recall = results.reduce((s, r) => s + r.metrics['linking.column.recall']!, 0) / results.length;
    expect(recall).toBeGreaterThan(0.6);

    // SS-QE's training-set precomputation: one instance per training item, shared by the variants that read it.
    expect(await traced('ucs-sql.train-preselect')).toHaveLength(161); // the same pre-processing as the target
    for (const stage of ['ucs-sql.train-question', 'ucs-sql.train-content', 'ucs-sql.train-foreign-keys', 'ucs-sql.train-structure']) {
      const rows = await traced(stage);
      expect(rows).toHaveLength(161);
      expect(rows.every((r) => (r.trace as Trace)!.prompt.length === 2)).toBe(true);
    }
    // Read whole through one training set each: its output lists every training item's key.
    for (const stage of ['ucs-sql.train-foreign-keys[*]', 'ucs-sql.train-structure[*]']) {
      const sets = await traced(stage);
      expect(sets).toHaveLength(1);
      expect(Object.keys((sets[0].output as { members: Record<string, string> }).members)).toHaveLength(161);
    }
    const trainStructures = (await traced('ucs-sql.train-structure')).map((r) => r.output as { functions: string[] });
    expect(trainStructures.filter((o) => o.functions.length > 0).length).toBeGreaterThan(150);

    // Every LLM stage of the item graph left a prompt and a raw response.
    for (const stage of ['ucs-sql.preselect', 'ucs-sql.question', 'ucs-sql.content', 'ucs-sql.foreign-keys', 'ucs-sql.structure', 'ucs-sql.select-shots', 'ucs-sql.skeleton', 'ucs-sql.generate']) {
      const called = (await traced(stage)).filter((r) => r.trace !== null && (r.trace as Trace)!.prompt !== undefined);
      expect({ stage, called: called.length > 0 }).toEqual({ stage, called: true });
      for (const r of called) expect(typeof (r.trace as Trace)!.response).toBe('string');
    }
    const candidates = (await traced('ucs-sql.shot-candidates')).map((r) => r.output as { selection: string; examples: unknown[]; metrics: Record<string, number> });
    expect(candidates.filter((c) => c.selection === 'ss-qe').every((c) => c.examples.length >= 1 && c.examples.length <= 4)).toBe(true);
    const fixed = candidates.filter((c) => c.selection === 'fixed').map((c) => JSON.stringify(c.examples));
    expect(fixed).toHaveLength(10);
    expect(new Set(fixed).size).toBe(1); // the same first two training questions for every item
    // DAIL: k shots chosen from the zero-shot draft, which is the zero-shot variant's own generation (one per item).
    const dail = candidates.filter((c) => c.selection === 'dail');
    expect(dail).toHaveLength(10);
    expect(dail.every((c) => c.examples.length === 2 && c.metrics['shots.queryMatched']! <= 2)).toBe(true);
    expect(dail.filter((c) => c.metrics['shots.draftParsed'] === 1).length).toBeGreaterThan(5);
    expect(await traced('zero-shot.generate')).toHaveLength(10);
    // Generation fills the skeleton and shows its shots (k = 2, or fewer when SS-QE kept fewer) before the target.
    const generate = (await traced('ucs-sql.generate')).map((r) => r.trace as Trace).filter((x) => x !== null);
    expect(generate.length).toBe(30);
    const questionLines = generate.map((g) => g!.prompt[1]!.content.match(/^Question: /gm)!.length);
    for (const g of generate) expect(g!.prompt[1]!.content).toContain('Fill the SQL skeleton');
    expect(questionLines.every((n) => n === 2 || n === 3)).toBe(true);
    expect(questionLines.filter((n) => n === 3).length).toBeGreaterThanOrEqual(20); // every fixed-shot and DAIL item at least

    // Everything is stored under its key: the same sweep again issues no job.
    const again = await e2e.runSweep(config, 120_000);
    expect(again.code).toBe(0);
    const secondId = runIdOf(again.stdout);
    const second = await e2e.db.selectFrom('runs').select(['stage_jobs', 'reused_stages', 'status']).where('id', '=', secondId).executeTakeFirstOrThrow();
    // 805 training extractions (5 stages x 161) and the 2 training sets SS-QE reads + per item: 6 shared target
    // stages, 5 per selection, the draft and zero-shot's evaluate.
    expect(second).toEqual({ stage_jobs: 0, reused_stages: 1037, status: 'done' });
  });
});
