import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
// nx-ignore-next-line
import { buildDashboard } from '@sqlsweep/dashboard';
import { launchBrowser, screenshot, type Browser } from './support/browser';
import { runIdOf } from './support/cli-output';
import { ReportTallies } from '@sqlsweep/db';
import { repoRoot, waitFor } from '@sqlsweep/testing';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { startOrchestrator, type Orchestrator } from './support/orchestrator';

jest.setTimeout(600_000);

const token = 'dashboard-e2e-token-0123456789';

/** The dashboard in Chromium against a real orchestrator over a finished demo sweep; every figure checked against Postgres. */
describe('dashboard in a browser over a finished demo sweep', () => {
  let e2e: E2eStack;
  let orchestrator: Orchestrator | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let url: string;
  let runId: string;
  const runIds: string[] = [];

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 2 });
    const run = await e2e.runSweep('test/fixtures/zero-shot-sweep.yaml');
    expect(run.code).toBe(0);
    runId = runIdOf(run.stdout);
    runIds.push(runId);
    await e2e.stopWorkers();

    await buildDashboard();
    orchestrator = await startOrchestrator(e2e, token);
    url = orchestrator.url;

    browser = await launchBrowser();
    page = browser.page;
    // Reads may be closed by config: the dashboard then sends the token it keeps in localStorage.
    await browser.context.addInitScript({ content: `localStorage.setItem('sqlsweep.apiToken', ${JSON.stringify(token)});` });
  });

  afterAll(async () => {
    await browser?.close();
    await orchestrator?.app.close();
    await e2e?.stop();
  });

  const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim() ?? '';
  const money = (s: string) => Number(s.replace(/[$,]/g, ''));
  const count = (s: string) => Number(s.replace(/,/g, ''));

  async function itemResults() {
    return e2e.db.selectFrom('item_results').select(['variant_id', 'item_id', 'correct', 'errored', 'difficulty', 'predicted_sql', 'simulated'])
      .where('run_id', '=', runId).execute();
  }

  it('lists the finished run with its simulated badge', async () => {
    await page.goto(`${url}/#/runs`);
    const row = page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('zero-shot-demo');
    expect(await row.locator('.status').textContent()).toBe('done');
    expect(await row.locator('[data-testid=simulated-badge]').isVisible()).toBe(true);
    await screenshot(page, '1-runs');
  });

  it('shows the leaderboard as Postgres has it: EX, per difficulty, tokens, cost, cost per correct', async () => {
    await page.goto(`${url}/#/runs/${runId}`);
    await page.locator('[data-testid=leaderboard-row]').nth(1).waitFor();
    await page.locator('[data-testid=scatter-point]').first().waitFor();
    const summaries = await e2e.db.selectFrom('run_summaries').selectAll().where('run_id', '=', runId).execute();
    const results = await itemResults();
    expect(summaries).toHaveLength(2);
    const rows = page.locator('[data-testid=leaderboard-row]');
    expect(await rows.count()).toBe(2);
    const shownOrder: string[] = [];
    for (let i = 0; i < 2; i++) {
      const row = rows.nth(i);
      const variantId = (await row.getAttribute('data-variant-id'))!;
      shownOrder.push(variantId);
      const s = summaries.find((x) => x.variant_id === variantId)!;
      expect(s).toBeDefined();
      const cell = async (col: string) => (await row.locator(`[data-col="${col}"]`).textContent())!.trim();
      expect(Number(await cell('items'))).toBe(s.items);
      expect(await cell('ex')).toBe(s.ex.toFixed(2));
      expect(await cell('scorer')).toBe(s.scorer); // the named scorer beside every EX
      expect(Number(await cell('parse-failures'))).toBe(s.parse_failures);
      expect(count(await cell('input-tokens'))).toBe(Number(s.input_tokens));
      expect(count(await cell('output-tokens'))).toBe(Number(s.output_tokens));
      expect(money(await cell('cost'))).toBeCloseTo(s.cost_usd, 4);
      const perCorrect = await cell('cost-per-correct');
      if (s.correct > 0) expect(money(perCorrect)).toBeCloseTo(s.cost_usd / s.correct, 4);
      else expect(perCorrect).toBe('–');
      const mine = results.filter((r) => r.variant_id === variantId);
      for (const d of new Set(mine.map((r) => r.difficulty ?? 'unknown'))) {
        const ofD = mine.filter((r) => (r.difficulty ?? 'unknown') === d);
        const locator = row.locator(`[data-col="ex-${d}"]`);
        expect(await locator.count()).toBe(1);
        expect((await locator.textContent())!.trim()).toBe(((100 * ofD.filter((r) => r.correct).length) / ofD.length).toFixed(2));
      }
      expect(await row.locator('[data-testid=simulated-badge]').isVisible()).toBe(true);
    }
    // Best first.
    const exOf = (id: string) => summaries.find((s) => s.variant_id === id)!.ex;
    expect(exOf(shownOrder[0])).toBeGreaterThanOrEqual(exOf(shownOrder[1]));
    expect(await page.locator('[data-testid=scatter-point]').count()).toBe(2);
    await screenshot(page, '2-leaderboard');
  });

  it('compares the two variants: delta, McNemar counts and flipped items match the paired item results', async () => {
    await page.goto(`${url}/#/runs/${runId}`);
    const rows = page.locator('[data-testid=leaderboard-row]');
    await rows.nth(1).waitFor();
    // A = the weaker variant (second row), B = the stronger: the delta should come out positive.
    const variantA = (await rows.nth(1).getAttribute('data-variant-id'))!;
    const variantB = (await rows.nth(0).getAttribute('data-variant-id'))!;
    await rows.nth(1).locator('input[type=checkbox]').check();
    await rows.nth(0).locator('input[type=checkbox]').check();
    await page.locator('[data-testid=compare-link]').click();
    await page.locator('[data-testid=compare-delta]').waitFor();

    const results = await itemResults();
    const a = new Map(results.filter((r) => r.variant_id === variantA).map((r) => [r.item_id, r.correct]));
    const b = new Map(results.filter((r) => r.variant_id === variantB).map((r) => [r.item_id, r.correct]));
    const paired = [...a.keys()].filter((id) => b.has(id));
    const improved = paired.filter((id) => b.get(id) && !a.get(id)).sort();
    const regressed = paired.filter((id) => a.get(id) && !b.get(id)).sort();
    const ex = (m: Map<string, boolean>) => (100 * paired.filter((id) => m.get(id)).length) / paired.length;
    const delta = ex(b) - ex(a);

    expect(await text('[data-testid=compare-delta]')).toBe(`${delta > 0 ? '+' : ''}${delta.toFixed(2)} pp`);
    const [low, high] = (await text('[data-testid=compare-interval]')).replace(/[[\]]/g, '').split(',').map(Number);
    expect(low).toBeLessThanOrEqual(delta + 0.005);
    expect(high).toBeGreaterThanOrEqual(delta - 0.005);
    const mcnemar = (await page.locator('[data-testid=mcnemar-p]').locator('..').textContent())!;
    expect(mcnemar).toContain(`${regressed.length} right only under A, ${improved.length} only under B`);
    const listed = async (id: string) => (await page.locator(`[data-testid=${id}] li`).allTextContents()).map((s) => s.trim()).sort();
    expect(await listed('flipped-improved')).toEqual(improved);
    expect(await listed('flipped-regressed')).toEqual(regressed);
    expect(Number(await page.locator('[data-testid=side-A] [data-col=correct]').textContent())).toBe(paired.filter((id) => a.get(id)).length);
    expect(Number(await page.locator('[data-testid=side-B] [data-col=correct]').textContent())).toBe(paired.filter((id) => b.get(id)).length);
    expect(await page.locator('[data-testid=comparison] [data-testid=simulated-badge]').first().isVisible()).toBe(true);
    await page.locator('[data-testid=scatter-point]').first().waitFor();
    await screenshot(page, '3-compare');

    // B's verdicts relabelled as another scorer's: the page warns that the two EX are not comparable. Stored results
    // never change, so the run's report tallies are dropped to be counted again (the API refreshes within 2 s).
    const relabel = async (to: string | null) => {
      await e2e.db.updateTable('item_results').set({ scorer: to }).where('variant_id', '=', variantB).execute();
      await new ReportTallies(e2e.db).forget(runIdOfVariantB);
      await new Promise((r) => setTimeout(r, 2_100));
    };
    const { scorer, run_id: runIdOfVariantB } = await e2e.db.selectFrom('item_results').select(['scorer', 'run_id']).where('variant_id', '=', variantB).executeTakeFirstOrThrow();
    await relabel('bird-ex-bag@1');
    try {
      await page.reload();
      expect(await text('[data-testid=scorer-warning]')).toContain(`A was scored by ${scorer}, B by bird-ex-bag@1`);
    } finally {
      await relabel(scorer);
    }
  });

  it('drills into a flipped item: question, gold and predicted SQL, and every stage with its prompt and response', async () => {
    const link = page.locator('[data-testid=flipped-improved] a, [data-testid=flipped-regressed] a').first();
    await link.click();
    await page.locator('[data-testid=item-detail]').waitFor();
    const itemId = await text('[data-testid=item-id]');
    expect(itemId).not.toBe('');

    const item = await e2e.db.selectFrom('dataset_items as i').innerJoin('runs', 'runs.dataset_version_id', 'i.version_id')
      .select(['i.question', 'i.gold_sql']).where('runs.id', '=', runId).where('i.item_id', '=', itemId).executeTakeFirstOrThrow();
    expect(await text('[data-testid=question]')).toBe(item.question.trim());
    expect(await text('[data-testid=gold-sql]')).toBe(item.gold_sql.trim());

    const results = (await itemResults()).filter((r) => r.item_id === itemId);
    const stages = await e2e.db.selectFrom('run_stages as s').innerJoin('stage_results as r', 'r.stage_key', 's.stage_key')
      .select(['s.variant_id', 's.stage', 'r.trace']).where('s.run_id', '=', runId).where('s.item_id', '=', itemId).execute();
    // The page shows one variant at a time (the one in the URL, else the first); its jump menu leads to the others.
    const jump = await page.locator('[data-testid=variant-jump] a').evaluateAll((els) => els.map((e) => e.getAttribute('data-variant-id')!));
    expect(jump).toHaveLength(2);
    for (const variantId of jump) {
      await page.goto(`${url}/#/runs/${runId}/items/${encodeURIComponent(itemId)}?variant=${variantId}`);
      const card = page.locator(`[data-testid=item-variant][data-variant-id="${variantId}"]`);
      await card.waitFor();
      expect(await page.locator('[data-testid=item-variant]').count()).toBe(1);
      const r = results.find((x) => x.variant_id === variantId)!;
      expect((await card.locator('[data-testid=predicted-sql]').textContent())!.trim()).toBe((r.predicted_sql ?? '(no SQL produced)').trim());
      expect(await card.locator('[data-testid=verdict]').first().getAttribute('data-category')).toEqual(r.correct ? 'correct' : r.errored ? 'pipeline-error' : expect.stringMatching(/^(wrong-result|sql-error|no-sql)$/));
      const mine = stages.filter((s) => s.variant_id === variantId);
      expect((await card.locator('[data-testid=stage-trace]').evaluateAll((els) => els.map((e) => e.getAttribute('data-stage')))).sort())
        .toEqual(mine.map((s) => s.stage).sort());
      const withPrompt = mine.filter((s) => (s.trace as { prompt?: unknown } | null)?.prompt != null);
      expect(withPrompt.length).toBeGreaterThan(0);
      expect(await card.locator('[data-testid=stage-prompt]').count()).toBe(withPrompt.length);
      for (const s of withPrompt) {
        const response = (s.trace as { response?: string | null }).response;
        if (response) expect(await card.locator(`[data-stage="${s.stage}"] [data-testid=stage-response]`).textContent()).toBe(response);
        // Every simulated answer says why: the stored trace holds the simulator's features and probability, shown on the stage.
        const simulation = (s.trace as { simulation?: { probability: number; features: Record<string, unknown> } }).simulation;
        expect(simulation).toEqual({ probability: expect.any(Number), features: expect.objectContaining({ schemaRecall: expect.any(Number) }) });
        expect(await card.locator(`[data-stage="${s.stage}"] [data-testid=stage-simulation]`).textContent())
          .toMatch(new RegExp(`^simulated: p = ${simulation!.probability.toFixed(2)}; schema recall [0-9.]+, gold reachable (yes|no), noise tables \\d+`));
      }
      expect(await card.locator('[data-testid=simulated-badge]').first().isVisible()).toBe(true);
      // Result tables, executed by the API: the row counts agree with what the evaluate stage stored.
      const evaluate = await e2e.db.selectFrom('run_stages as s').innerJoin('stage_results as r', 'r.stage_key', 's.stage_key').select('r.output')
        .where('s.run_id', '=', runId).where('s.variant_id', '=', variantId).where('s.item_id', '=', itemId).where('s.is_final', '=', true).executeTakeFirstOrThrow();
      const predicted = (evaluate.output as { predicted: { status: string; rows?: number } }).predicted;
      const table = card.locator('[data-testid=predicted-table]');
      await table.waitFor();
      expect(await table.getAttribute('data-status')).toBe(r.predicted_sql === null ? 'missing' : predicted.status);
      if (predicted.rows !== undefined) expect(Number(await table.getAttribute('data-row-count'))).toBe(predicted.rows);
      expect(await card.locator('[data-testid=gold-table]').getAttribute('data-status')).toBe('ok');
    }
    await screenshot(page, '4-item');
  });

  it('follows a running sweep live: progress per stage kind against Postgres, cost so far, then done', async () => {
    // The demo sweep under a fresh cache namespace: its LLM stages must run again (gold SQL is reused), and with no
    // worker up yet the run sits at its planned counts until workers start.
    const config = `${readFileSync(join(repoRoot, 'test/fixtures/zero-shot-sweep.yaml'), 'utf8')}\ncacheNamespace: dashboard-live\n`;
    const res = await fetch(`${url}/api/runs`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ config, source: 'demo.yaml' }),
    });
    expect(res.status).toBeLessThan(300);
    const liveRunId = ((await res.json()) as { runId: string }).runId;
    runIds.push(liveRunId);

    await page.goto(`${url}/#/runs`);
    const row = page.locator(`[data-testid=run-row][data-run-id="${liveRunId}"]`);
    await row.locator('[data-testid=stage-progress]').first().waitFor();
    expect(await row.locator('.status').textContent()).toBe('running');
    const planned = await e2e.db.selectFrom('run_stages').select(['stage', (eb) => eb.fn.count<string>('stage_key').distinct().as('n')])
      .where('run_id', '=', liveRunId).groupBy('stage').execute();
    const shown = async () => Object.fromEntries(await row.locator('[data-testid=stage-progress]').evaluateAll((els) =>
      els.map((e) => [e.getAttribute('data-stage'), e.querySelector('.progress-count')?.textContent ?? ''])));
    const before = await shown();
    expect(Object.keys(before).sort()).toEqual(planned.map((p) => p.stage).sort());
    for (const p of planned) expect(before[p.stage]).toMatch(new RegExp(`^\\d+/${Number(p.n)}`));
    expect(before['zero-shot.generate']).toMatch(/^0\//);
    expect(await row.locator('[data-testid=cost-so-far]').textContent()).toMatch(/^cost so far \$\d/);
    await screenshot(page, '5-live-before-workers');

    e2e.startWorkers(2);
    // The page polls the API: the same row moves on without a reload, until it shows the run finished.
    await waitFor('the live row to show progress', async () => ((await shown())['zero-shot.generate'] ?? '').match(/^([1-9]\d*)\//) ? true : undefined, 120_000, 200);
    await screenshot(page, '6-live-progress');
    await row.locator('.status', { hasText: 'done' }).waitFor({ timeout: 180_000 });
    const finished = await e2e.db.selectFrom('runs').select('status').where('id', '=', liveRunId).executeTakeFirstOrThrow();
    expect(finished.status).toBe('done');
    await screenshot(page, '7-live-done');
  });

  it('plots the runs of the sweep over time, night-to-night deltas as Postgres has them, regressions only below zero', async () => {
    await page.goto(`${url}/#/trends?sweep=zero-shot-demo`);
    // This orchestrator runs no schedules file: the trend is the sweep's, each run compared with the one before.
    await page.locator('[data-testid=trend-row]').nth(3).waitFor();
    await page.locator('[data-testid=line-plot]').waitFor();
    const variants = await e2e.db.selectFrom('variants').select(['id', 'run_id', 'variant_key']).where('run_id', 'in', runIds).execute();
    const results = await e2e.db.selectFrom('item_results').select(['run_id', 'variant_id', 'item_id', 'correct']).where('run_id', 'in', runIds).execute();
    const summaries = await e2e.db.selectFrom('run_summaries').select(['variant_id', 'ex']).where('run_id', 'in', runIds).execute();
    expect(await page.locator('[data-testid=trend-row]').count()).toBe(variants.length);
    const [firstRun, laterRun] = runIds;
    const expectedRegressions: string[] = [];
    for (const v of variants) {
      const row = page.locator(`[data-testid=trend-row][data-run-id="${v.run_id}"][data-variant-id="${v.id}"]`);
      expect((await row.locator('[data-col=ex]').textContent())!.trim()).toBe(summaries.find((x) => x.variant_id === v.id)!.ex.toFixed(2));
      const deltaCell = (await row.locator('[data-col=delta]').textContent())!.trim();
      if (v.run_id === firstRun) { expect(deltaCell).toBe('–'); continue; }
      expect(v.run_id).toBe(laterRun);
      const prev = variants.find((x) => x.run_id === firstRun && x.variant_key === v.variant_key)!;
      const before = new Map(results.filter((r) => r.variant_id === prev.id).map((r) => [r.item_id, r.correct]));
      const after = results.filter((r) => r.variant_id === v.id && before.has(r.item_id));
      const delta = (100 * (after.filter((r) => r.correct).length - after.filter((r) => before.get(r.item_id)).length)) / after.length;
      expect(deltaCell).toBe(`${delta > 0 ? '+' : ''}${delta.toFixed(2)} pp`);
      const [low, high] = (await row.locator('td').last().textContent())!.replace(/[[\]]/g, '').split(',').map(Number);
      expect(low).toBeLessThanOrEqual(delta + 0.005);
      expect(high).toBeGreaterThanOrEqual(delta - 0.005);
      if (high < 0) expectedRegressions.push(v.id);
    }
    const marked = await page.locator('[data-testid=regression]').evaluateAll((els) => els.map((e) => e.getAttribute('data-variant-id')));
    expect(marked.sort()).toEqual(expectedRegressions.sort());
    expect(await page.locator('[data-testid=regression-mark]').count()).toBe(expectedRegressions.length);
    await screenshot(page, '8-trends');
  });
});
