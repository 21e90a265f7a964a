import { join } from 'node:path';
import { mcnemar, pairedBootstrap } from '@sqlsweep/orchestration';
import { readSpiderPredictions } from '@sqlsweep/sql-sandbox';
import { runEval } from '@sqlsweep/cli/src/commands/eval';
import { runIdOf } from './support/cli-output';
import { repoRoot } from '@sqlsweep/testing';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { startOrchestrator, type Orchestrator } from './support/orchestrator';

jest.setTimeout(400_000);

/**
 * The API over a real finished demo sweep (2 simulated variants x 60 minibench dev items), checked against
 * Postgres; and its BIRD prediction export, scored by `sqlsweep eval`, agreeing item for item with the stored verdicts.
 */
describe('orchestrator API over a finished demo sweep', () => {
  const token = 'export-eval-token-0123456789';
  const auth = { authorization: `Bearer ${token}` }; // reads of items, traces and exports need it
  let e2e: E2eStack;
  let orchestrator: Orchestrator | undefined;
  let url: string;
  let runId: string;
  let variants: Array<{ id: string; label: string; model: string }>;

  // Response bodies are checked field by field against Postgres, so they are read loosely typed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const getJson = async (path: string): Promise<any> => {
    const res = await fetch(`${url}${path}`, { headers: auth });
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.json();
  };

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 2 });
    const run = await e2e.runSweep('test/fixtures/zero-shot-sweep.yaml', 330_000); // the machine is shared: allow for load
    expect(run.code).toBe(0);
    runId = runIdOf(run.stdout);
    variants = await e2e.db.selectFrom('variants').select(['id', 'label', 'model']).where('run_id', '=', runId).orderBy('position').execute();
    orchestrator = await startOrchestrator(e2e, token);
    url = orchestrator.url;
  });

  afterAll(async () => {
    await orchestrator?.app.close();
    await e2e?.stop();
  });

  async function storedResults() {
    return e2e.db.selectFrom('item_results as r').innerJoin('runs', 'runs.id', 'r.run_id')
      .innerJoin('dataset_items as i', (j) => j.onRef('i.version_id', '=', 'runs.dataset_version_id').onRef('i.item_id', '=', 'r.item_id'))
      .select(['r.variant_id', 'r.item_id', 'r.correct', 'r.parse_failed', 'r.predicted_sql', 'r.cost_usd', 'r.difficulty', 'r.scorer', 'i.position', 'i.db_id', 'i.gold_sql'])
      .where('r.run_id', '=', runId).orderBy('i.position').execute();
  }

  it('shows the finished run, its leaderboard and cost-accuracy points as Postgres has them', async () => {
    const detail = await getJson(`/api/runs/${runId}`);
    expect(detail.run).toEqual(expect.objectContaining({ id: runId, status: 'done', sweepName: 'zero-shot-demo', simulated: true, itemCount: 60, variantCount: 2 }));
    expect(detail).toEqual(expect.objectContaining({ itemsDone: 120, itemsPlanned: 120, etaSeconds: null }));
    const summaries = await e2e.db.selectFrom('run_summaries').selectAll().where('run_id', '=', runId).execute();
    const spent = await e2e.db.selectFrom('stage_results').select((e) => e.fn.sum<number>('cost_usd').as('c')).where('run_id', '=', runId).where('reused', '=', false).executeTakeFirstOrThrow();
    expect(detail.costSoFarUsd).toBeCloseTo(Number(spent.c), 9);
    expect(detail.costSoFarUsd).toBeGreaterThan(0);
    expect(detail.leaderboard).toHaveLength(2);
    for (const row of detail.leaderboard) {
      const s = summaries.find((x) => x.variant_id === row.variantId)!;
      expect(row.ex).toBeCloseTo(s.ex, 9);
      // Every EX names the scorer that gave it: minibench is scored as BIRD, by DAMO's set comparison.
      expect(s.scorer).toBe('bird-ex@2');
      expect(row.scorer).toBe(s.scorer);
      expect(row.correct).toBe(s.correct);
      expect(row.parseFailures).toBe(s.parse_failures); // counted apart from wrong SQL, beside EX
      expect(row.costUsd).toBeCloseTo(s.cost_usd, 9);
      expect(row.simulated).toBe(true);
      const stored = (s as unknown as { metrics: Record<string, number> }).metrics;
      expect(Object.keys(row.metrics).sort()).toEqual(Object.keys(stored).sort());
      for (const [k, mean] of Object.entries(stored)) expect(row.metrics[k]).toBeCloseTo(mean, 9);
      // The API and the summary average the same rows in their own order: equal up to the last bits.
      if (stored.ves === undefined) expect(row.ves).toBeNull();
      else expect(row.ves).toBeCloseTo(stored.ves, 9);
      expect(row.byDifficulty.reduce((n: number, d: { items: number }) => n + d.items, 0)).toBe(60);
    }
    expect(detail.leaderboard[0].ex).toBeGreaterThanOrEqual(detail.leaderboard[1].ex);
    const points = (await getJson(`/api/runs/${runId}/cost-accuracy`)).points;
    expect(points.map((p: { variantId: string }) => p.variantId).sort()).toEqual(variants.map((v) => v.id).sort());
    expect(points.some((p: { pareto: boolean }) => p.pareto)).toBe(true);
    expect(points.map((p: { scorer: string }) => p.scorer)).toEqual(['bird-ex@2', 'bird-ex@2']);
    const sweep = await getJson('/api/runs/' + runId + '/param-sweep?knob=model');
    expect(sweep.values).toEqual(['sim-strong', 'sim-weak']);
    expect(sweep.series).toHaveLength(1);
    expect(sweep.scorer).toBe('bird-ex@2');
  });

  it('filters, sorts and pages item results exactly as a query of Postgres does', async () => {
    const stored = await storedResults();
    const weak = variants.find((v) => v.model === 'sim-weak')!;
    const wrongWeak = stored.filter((r) => r.variant_id === weak.id && !r.correct);
    const page = await getJson(`/api/runs/${runId}/items?variantId=${weak.id}&correct=false&limit=5&offset=1`);
    expect(page.total).toBe(wrongWeak.length);
    expect(page.items.map((i: { itemId: string }) => i.itemId)).toEqual(wrongWeak.slice(1, 6).map((r) => r.item_id));
    expect(page.items.every((i: { correct: boolean; simulated: boolean }) => !i.correct && i.simulated)).toBe(true);
    const byCost = await getJson(`/api/runs/${runId}/items?sort=cost_usd&order=desc&limit=1000`);
    expect(byCost.total).toBe(120);
    expect(stored.map((r) => r.scorer)).toEqual(stored.map(() => 'bird-ex@2'));
    expect(byCost.items.map((i: { scorer: string }) => i.scorer)).toEqual(stored.map(() => 'bird-ex@2'));
    const costs = byCost.items.map((i: { costUsd: number }) => i.costUsd);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    const db = stored[0].db_id;
    expect((await getJson(`/api/runs/${runId}/items?dbId=${db}&limit=1000`)).total).toBe(stored.filter((r) => r.db_id === db).length);
  });

  it('drills into an item: gold, both predictions and every stage with prompt, response, tokens and the sandbox verdict', async () => {
    const stored = await storedResults();
    const item = stored[0];
    const drill = await getJson(`/api/runs/${runId}/items/${encodeURIComponent(item.item_id)}`);
    expect(drill).toEqual(expect.objectContaining({ itemId: item.item_id, goldSql: item.gold_sql, dbId: item.db_id, simulated: true }));
    for (const v of drill.variants) {
      const mine = stored.find((r) => r.variant_id === v.variantId && r.item_id === item.item_id)!;
      expect(v.result).toEqual(expect.objectContaining({ correct: mine.correct, predictedSql: mine.predicted_sql }));
      const llm = v.stages.find((s: { role: string }) => s.role === 'llm');
      expect(llm).toEqual(expect.objectContaining({ status: 'done', simulated: true, response: expect.any(String) }));
      expect(llm.prompt).not.toBeNull();
      expect(llm.inputTokens).toBeGreaterThan(0);
      const verdicts = v.stages.filter((s: { role: string }) => s.role === 'sql').map((s: { sandbox: { status: string } | null }) => s.sandbox?.status);
      expect(verdicts.length).toBeGreaterThan(0);
      expect(verdicts.every((s: string | undefined) => s === 'ok' || s === 'error' || s === 'timeout')).toBe(true);
      const stages = await getJson(`/api/runs/${runId}/variants/${v.variantId}/items/${encodeURIComponent(item.item_id)}/stages`);
      expect(stages).toEqual(v.stages);
      const tables = await getJson(`/api/runs/${runId}/variants/${v.variantId}/items/${encodeURIComponent(item.item_id)}/tables`);
      const goldStage = v.stages.find((s: { stage: string }) => s.stage === 'gold');
      expect(tables.gold.status).toBe('ok');
      expect(tables.gold.rowCount).toBe(goldStage.output.rows.length);
      expect(tables.predicted.sql).toBe(mine.predicted_sql);
      if (mine.correct) {
        // BIRD semantics: the same set of rows.
        const set = (rows: unknown[][]) => [...new Set(rows.map((r) => JSON.stringify(r)))].sort();
        expect(set(tables.predicted.rows)).toEqual(set(tables.gold.rows));
      }
    }
  });

  it('compares the two variants with the statistics computed from the stored outcomes', async () => {
    const stored = await storedResults();
    const [a, b] = variants;
    const cmp = await getJson(`/api/compare?runA=${runId}&variantA=${a.id}&runB=${runId}&variantB=${b.id}&resamples=2000&seed=3`);
    const pairs = stored.filter((r) => r.variant_id === a.id).map((ra) => ({
      itemId: ra.item_id, a: ra.correct, b: stored.find((rb) => rb.variant_id === b.id && rb.item_id === ra.item_id)!.correct,
    })).sort((x, y) => (x.itemId < y.itemId ? -1 : 1));
    const boot = pairedBootstrap(pairs, { resamples: 2000, seed: 3, confidence: 0.95 });
    expect(cmp.pairedItems).toBe(60);
    expect(cmp.delta).toBeCloseTo(boot.delta, 9);
    expect(cmp.interval).toEqual({ low: boot.low, high: boot.high, confidence: 0.95, resamples: 2000 });
    expect(cmp.mcnemar).toEqual(mcnemar(pairs));
    expect(cmp.flipped.improved.sort()).toEqual(pairs.filter((p) => !p.a && p.b).map((p) => p.itemId).sort());
    expect(cmp.flipped.regressed.sort()).toEqual(pairs.filter((p) => p.a && !p.b).map((p) => p.itemId).sort());
    expect(cmp.byDifficulty.reduce((n: number, d: { items: number }) => n + d.items, 0)).toBe(60);
    expect(cmp.simulated).toBe(true);
    expect([cmp.a.scorer, cmp.b.scorer]).toEqual(['bird-ex@2', 'bird-ex@2']);
    expect(cmp.scorerWarning).toBeNull();
    // Two runs: naming only one variant pairs it with the same variant key in the other run.
    const sameRun = await getJson(`/api/compare?runA=${runId}&variantA=${a.id}&runB=${runId}`);
    expect(sameRun.b.variantId).toBe(a.id);
    expect(sameRun.delta).toBe(0);
  });

  it('exports BIRD predictions that sqlsweep eval scores identically to the stored results, and Spider/CSV/JSONL of the same rows', async () => {
    const stored = await storedResults();
    for (const v of variants) {
      const mine = stored.filter((r) => r.variant_id === v.id);
      const bird = await fetch(`${url}/api/runs/${runId}/export?format=bird&variantId=${v.id}`, { headers: auth });
      expect(bird.headers.get('content-disposition')).toMatch(/attachment/);
      const predFile = e2e.writeFile(`${v.id}.json`, await bird.text());
      const goldFile = e2e.writeFile(`${v.id}_gold.sql`, mine.map((r) => `${r.gold_sql.replace(/\s+/g, ' ')}\t${r.db_id}\n`).join(''));
      const questions = e2e.writeFile(`${v.id}_questions.json`, JSON.stringify(mine.map((r) => ({ difficulty: r.difficulty }))));
      // --db-dir as the official layout has it (<db>/<db>.sqlite): the registered dataset's own folder.
      const dbDir = join(repoRoot, 'data/minibench/dist/dev_databases');
      const summary = await runEval({ format: 'bird', dbDir, gold: goldFile, pred: predFile, metric: 'ex', questions, timeoutMs: 30_000, vesIterations: 1, workers: 2 });
      expect(summary.items.map((i) => i.exec === 1)).toEqual(mine.map((r) => r.correct));
      expect(summary.scorer.id).toBe(mine[0].scorer); // the stored verdicts and eval's come from the same named scorer

      const spider = await (await fetch(`${url}/api/runs/${runId}/export?format=spider&variantId=${v.id}`, { headers: auth })).text();
      const spiderFile = e2e.writeFile(`${v.id}.sql`, spider);
      expect(readSpiderPredictions(spiderFile)).toEqual(mine.map((r) => (r.predicted_sql ?? 'SELECT').replace(/[\t\r\n]+/g, ' ').trim() || 'SELECT'));
    }
    const jsonl = (await (await fetch(`${url}/api/runs/${runId}/export?format=jsonl`, { headers: auth })).text()).trim().split('\n').map((l) => JSON.parse(l) as { itemId: string; variantId: string; correct: boolean; parseFailed: boolean; simulated: boolean; scorer: string | null });
    expect(jsonl).toHaveLength(120);
    for (const r of stored) {
      const exported = jsonl.find((j) => j.itemId === r.item_id && j.variantId === r.variant_id);
      expect([exported?.correct, exported?.parseFailed]).toEqual([r.correct, r.parse_failed]);
    }
    expect(jsonl.every((j) => j.simulated)).toBe(true);
    expect(jsonl.map((j) => j.scorer)).toEqual(jsonl.map(() => 'bird-ex@2')); // each verdict names its scorer
    const csv = (await (await fetch(`${url}/api/runs/${runId}/export?format=csv&variantId=${variants[0].id}`, { headers: auth })).text()).trimEnd().split('\r\n');
    expect(csv).toHaveLength(61);
  });

  it('exposes Prometheus metrics that add up to what Postgres stores', async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const stages = await e2e.db.selectFrom('stage_results').select(['stage']).execute();
    for (const stage of new Set(stages.map((s) => s.stage))) {
      const n = stages.filter((s) => s.stage === stage).length;
      expect(text).toContain(`sqlsweep_stage_results{stage="${stage}"} ${n}`);
    }
    expect(text).toMatch(/sqlsweep_llm_tokens\{stage="[^"]+",kind="input"\} [1-9]/);
    expect(text).toMatch(/sqlsweep_llm_cost_usd\{stage="[^"]+"\} /);
    expect(text).toMatch(/sqlsweep_queue_rate_limit_wait_seconds\{queue="stage-llm"\} /);
    expect(text).toMatch(/sqlsweep_sandbox_timeouts \d+/);
    expect(text).toMatch(/sqlsweep_stage_jobs_per_second\{stage="[^"]+"\} /);
    expect(text).toMatch(/sqlsweep_runs\{status="done"\} 1/);
  });
});
