import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
// nx-ignore-next-line
import { buildDashboard } from '@sqlsweep/dashboard';
import { repoRoot, waitFor } from '@sqlsweep/testing';
import { launchBrowser, screenshot, type Browser } from './support/browser';
import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { startOrchestrator, type Orchestrator } from './support/orchestrator';

jest.setTimeout(300_000);

const token = 'dashboard-actions-token-0123456789';
const readToken = 'dashboard-actions-read-only-0123456';
const fixture = 'test/fixtures/zero-shot-sweep.yaml';
/** The fixture over fewer items, to keep the suite short. */
const ITEMS = 20;
const sweepText = (extra = '', items = ITEMS) => `${readFileSync(join(repoRoot, fixture), 'utf8').replace(/items: \{ limit: \d+ \}/, `items: { limit: ${items} }`)}\n${extra}`;
/** How far the ETA shown at half way may be from the real time left: 10 s or half of it, whichever is larger. */
const ETA_TOLERANCE = (actualS: number) => Math.max(10, 0.5 * actualS);

/**
 * Acting from the dashboard in Chromium, against a real orchestrator, workers and Postgres: the best variant against
 * the next with its interval, cost and reuse, re-run (estimate, then confirm) and cancel, export, a read-only token,
 * and a run page that stays live across an API restart with an honest ETA. Every figure is checked against Postgres.
 */
describe('dashboard actions over a seeded demo sweep', () => {
  let e2e: E2eStack;
  let api: Orchestrator | undefined;
  let port = 0;
  let browser: Browser | undefined;
  let page: Page;
  let url: string;
  let runId: string;

  const startApi = async () => {
    api = await startOrchestrator(e2e, token, { SQLSWEEP_READ_TOKEN: readToken }, port);
    url = api.url;
    port = Number(new URL(url).port);
  };
  const setToken = async (t: string) => page.evaluate(`localStorage.setItem('sqlsweep.apiToken', ${JSON.stringify(t)})`);

  beforeAll(async () => {
    const s0 = Date.now();
    // Slower simulated models (about 0.3 s a call), one call at a time per worker: the live run lasts long enough to watch.
    e2e = await startE2eStack({ workers: 2, simulator: { config: 'test/fixtures/llm-sim-slow.yaml' }, env: { SQLSWEEP_LLM_CONCURRENCY: '1' } });
    console.log(`stack: ${((Date.now() - s0) / 1000).toFixed(1)} s`);
    const t0 = Date.now();
    const [run] = await Promise.all([e2e.runSweep(e2e.writeFile('actions-sweep.yaml', sweepText())), buildDashboard()]);
    console.log(`seeded sweep and dashboard build: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (run.code !== 0) throw new Error(`the seeded sweep exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
    runId = runIdOf(run.stdout);
    await e2e.stopWorkers();
    await startApi();
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`${url}/#/runs`);
    await setToken(token);
    await page.reload();
  });

  afterAll(async () => {
    await browser?.close();
    await api?.app.close();
    await e2e?.stop();
  });

  const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim() ?? '';
  const money = (s: string) => Number(s.replace(/[$,]/g, ''));
  const interval = (s: string) => s.replace(/[[\]]/g, '').split(',').map(Number) as [number, number];
  const openRun = async (id: string) => {
    await page.goto(`${url}/#/runs/${id}`);
    await page.locator('[data-testid=run-status]').waitFor();
  };

  it('answers "which variant is best, and is it significantly better than the next?" on the run page, the full comparison one click away', async () => {
    await openRun(runId);
    await page.locator('[data-testid=best-vs-next]').waitFor();
    const rows = page.locator('[data-testid=leaderboard-row]');
    const best = (await rows.nth(0).getAttribute('data-variant-id'))!;
    const next = (await rows.nth(1).getAttribute('data-variant-id'))!;
    const results = await e2e.db.selectFrom('item_results').select(['variant_id', 'item_id', 'correct']).where('run_id', '=', runId).execute();
    const of = (v: string) => new Map(results.filter((r) => r.variant_id === v).map((r) => [r.item_id, r.correct]));
    const [b, n] = [of(best), of(next)];
    const paired = [...b.keys()].filter((id) => n.has(id));
    const gap = (100 * (paired.filter((id) => b.get(id)).length - paired.filter((id) => n.get(id)).length)) / paired.length;
    expect(await text('[data-testid=best-vs-next-delta]')).toBe(`${gap > 0 ? '+' : ''}${gap.toFixed(2)} pp`);
    const [low, high] = interval(await text('[data-testid=best-vs-next-interval]'));
    expect(low).toBeLessThanOrEqual(gap + 0.005);
    expect(high).toBeGreaterThanOrEqual(gap - 0.005);
    const tied = low <= 0 && high >= 0;
    expect(await text('[data-testid=best-vs-next-verdict]')).toBe(tied ? 'not significantly different: tied (the interval includes 0)' : 'the best is significantly better (the interval excludes 0)');
    expect(await rows.nth(1).getAttribute('data-tied')).toBe(String(tied));
    // Every EX carries its 95 % Wilson interval.
    for (let i = 0; i < 2; i++) {
      const mine = results.filter((r) => r.variant_id === (i === 0 ? best : next));
      const k = mine.filter((r) => r.correct).length;
      const [lo, hi] = interval(await rows.nth(i).locator('[data-col=ex-interval]').textContent() ?? '');
      const z = 1.959964; const nn = mine.length; const p = k / nn;
      const centre = (p + (z * z) / (2 * nn)) / (1 + (z * z) / nn);
      const half = (z * Math.sqrt((p * (1 - p)) / nn + (z * z) / (4 * nn * nn))) / (1 + (z * z) / nn);
      expect(lo).toBeCloseTo(100 * (centre - half), 0);
      expect(hi).toBeCloseTo(100 * (centre + half), 0);
    }
    await screenshot(page, 'actions-1-best-vs-next');
    // One click: the compare page, A = next, B = best, the same delta.
    await page.locator('[data-testid=best-vs-next-compare]').click();
    await page.locator('[data-testid=compare-delta]').waitFor();
    expect(await text('[data-testid=compare-delta]')).toBe(`${gap > 0 ? '+' : ''}${gap.toFixed(2)} pp`);
    const [cLow, cHigh] = interval(await text('[data-testid=compare-interval]'));
    expect(await page.locator('[data-testid=compare-delta-box]').getAttribute('data-significant')).toBe(String(cLow > 0 || cHigh < 0));
  });

  it('shows total cost against the estimate, and what reuse and the cache saved, as Postgres has them', async () => {
    await openRun(runId);
    await page.locator('[data-testid=run-cost]').waitFor();
    const keys = e2e.db.selectFrom('run_stages').select('stage_key').distinct().where('run_id', '=', runId);
    const rows = await e2e.db.selectFrom('stage_results').select(['run_id', 'reused', 'cost_usd']).where('stage_key', 'in', keys).execute();
    const paid = rows.filter((r) => r.run_id === runId && !r.reused);
    const run = await e2e.db.selectFrom('runs').select(['estimated_cost_usd']).where('id', '=', runId).executeTakeFirstOrThrow();
    expect(money(await text('[data-testid=cost-spent]'))).toBeCloseTo(paid.reduce((n, r) => n + r.cost_usd, 0), 4);
    expect(money(await text('[data-testid=cost-estimate]'))).toBeCloseTo(run.estimated_cost_usd, 4);
    expect(await text('[data-testid=cache-calls]')).toMatch(new RegExp(`^${rows.filter((r) => r.run_id === runId && r.reused).length} calls answered from the cache`));
    expect(await text('[data-testid=reuse-stages]')).toMatch(new RegExp(`^${rows.filter((r) => r.run_id !== runId).length} stage results reused`));
    await screenshot(page, 'actions-2-cost');
  });

  let rerunId: string;
  it('re-runs under a new cache namespace from the UI (estimate first, then confirm), shows its reuse, then cancels it from the UI', async () => {
    await openRun(runId);
    await page.getByLabel('cache namespace of the re-run').fill('actions-rerun');
    await page.locator('[data-testid=action-rerun-estimate]').click();
    await page.locator('[data-testid=plan-estimate]').waitFor();
    const shownJobs = Number((await text('[data-testid=estimate-stage-jobs]')).replace(/,/g, ''));
    expect(await page.locator('[data-testid=run-status]').textContent()).toBe('done'); // nothing started yet
    await page.locator('[data-testid=action-rerun-confirm]').click();
    await page.waitForFunction(`!window.location.hash.includes(${JSON.stringify(runId)})`);
    rerunId = /#\/runs\/([0-9a-f-]{36})/.exec(page.url())![1];
    await page.locator('[data-testid=run-status]', { hasText: 'running' }).waitFor();
    const created = await e2e.db.selectFrom('runs').select(['stage_jobs', 'cache_namespace', 'status']).where('id', '=', rerunId).executeTakeFirstOrThrow();
    expect(created).toEqual({ stage_jobs: shownJobs, cache_namespace: 'actions-rerun', status: 'running' });
    // The gold stages are reused from the seeded run (their keys do not read the cache namespace): the page says so.
    const reused = await e2e.db.selectFrom('run_stages as s').innerJoin('stage_results as r', 'r.stage_key', 's.stage_key')
      .select((eb) => eb.fn.count<string>('s.stage_key').distinct().as('n')).where('s.run_id', '=', rerunId).where('r.run_id', '!=', rerunId).executeTakeFirstOrThrow();
    expect(Number(reused.n)).toBeGreaterThan(0);
    await waitFor('the reuse count', async () => (await text('[data-testid=reuse-stages]')).startsWith(`${Number(reused.n)} stage results reused`) || undefined, 10_000, 200);
    await screenshot(page, 'actions-3-rerun-running');

    // Cancel: two clicks (cancel, confirm).
    await page.locator('[data-testid=action-cancel]').click();
    await page.locator('[data-testid=action-cancel-confirm]').click();
    await page.locator('[data-testid=run-status]', { hasText: 'cancelled' }).waitFor({ timeout: 10_000 });
    expect((await e2e.db.selectFrom('runs').select('status').where('id', '=', rerunId).executeTakeFirstOrThrow()).status).toBe('cancelled');
    expect(await page.locator('[data-testid=action-cancel]').isDisabled()).toBe(true);
    expect(await page.locator('[data-testid=action-resume]').isDisabled()).toBe(true);
  });

  it('starts a run from a stored sweep config on the runs page (estimate first, then confirm), and cancels it from the list', async () => {
    const { sweep_id: sweepId, estimated_llm_calls: seededCalls } = await e2e.db.selectFrom('runs').select(['sweep_id', 'estimated_llm_calls']).where('id', '=', runId).executeTakeFirstOrThrow();
    await page.goto(`${url}/#/runs`);
    await page.locator(`[data-testid=start-sweep] option[value="${sweepId}"]`).waitFor({ state: 'attached' });
    await page.locator('[data-testid=start-sweep]').selectOption(sweepId);
    await page.getByLabel('cache namespace of the new run').fill('actions-start');
    await page.locator('[data-testid=start-estimate]').click();
    await page.locator('[data-testid=plan-estimate]').waitFor();
    // A fresh namespace: every LLM call of the sweep again, as the seeded run's plan had them.
    expect(Number((await text('[data-testid=estimate-llm-calls]')).replace(/,/g, ''))).toBe(seededCalls);
    const runsBefore = await e2e.db.selectFrom('runs').select('id').execute();
    await page.locator('[data-testid=start-confirm]').click();
    await page.locator('[data-testid=run-status]', { hasText: 'running' }).waitFor();
    const startedId = /#\/runs\/([0-9a-f-]{36})/.exec(page.url())![1];
    expect(runsBefore.map((r) => r.id)).not.toContain(startedId);
    expect(await e2e.db.selectFrom('runs').select(['sweep_id', 'cache_namespace']).where('id', '=', startedId).executeTakeFirstOrThrow())
      .toEqual({ sweep_id: expect.any(String), cache_namespace: 'actions-start' });

    // Cancel from its row of the runs list: two clicks.
    await page.goto(`${url}/#/runs`);
    const row = page.locator(`[data-testid=run-row][data-run-id="${startedId}"]`);
    await row.locator('[data-testid=list-cancel]').click();
    await row.locator('[data-testid=list-cancel-confirm]').click();
    await row.locator('.status', { hasText: 'cancelled' }).waitFor({ timeout: 15_000 });
    expect((await e2e.db.selectFrom('runs').select('status').where('id', '=', startedId).executeTakeFirstOrThrow()).status).toBe('cancelled');
  });

  it('exports the official Spider file of a variant and the CSV of the run from the UI, as Postgres has them', async () => {
    await openRun(runId);
    const variantId = (await page.locator('[data-testid=leaderboard-row]').first().getAttribute('data-variant-id'))!;
    const rows = await e2e.db.selectFrom('item_results as ir').innerJoin('runs as r', 'r.id', 'ir.run_id')
      .innerJoin('dataset_items as di', (j) => j.onRef('di.version_id', '=', 'r.dataset_version_id').onRef('di.item_id', '=', 'ir.item_id'))
      .select(['ir.variant_id', 'ir.item_id', 'ir.predicted_sql', 'ir.correct', 'di.position']).where('ir.run_id', '=', runId).orderBy('di.position').execute();

    const fetchDownload = async (choice: string) => {
      await page.locator('[data-testid=export-format]').selectOption(choice);
      const [file] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=export-action], [data-testid=action-export]').first().click()]);
      return { name: file.suggestedFilename(), body: readFileSync((await file.path())!, 'utf8') };
    };
    const spider = await fetchDownload(`spider:${variantId}`);
    expect(spider.name).toBe(`${runId}-${variantId}.sql`);
    const expected = rows.filter((r) => r.variant_id === variantId).map((r) => `${(r.predicted_sql ?? '').replace(/[\t\r\n]+/g, ' ').trim() || 'SELECT'}\n`).join('');
    expect(spider.body).toBe(expected);

    const csv = await fetchDownload('csv');
    const [header, ...records] = parseCsv(csv.body);
    expect(records).toHaveLength(rows.length);
    // Verdict categories are exported, counted as Postgres has them: `correct` exactly where the row is correct.
    const at = (name: string) => header.indexOf(name);
    expect(at('category')).toBeGreaterThan(-1);
    const byKey = new Map(rows.map((r) => [`${r.variant_id}/${r.item_id}`, r]));
    for (const rec of records) {
      const r = byKey.get(`${rec[at('variantId')]}/${rec[at('itemId')]}`)!;
      expect(r).toBeDefined();
      expect(rec[at('category')] === 'correct').toBe(r.correct);
      expect(rec[at('predictedSql')]).toBe(r.predicted_sql ?? '');
    }
    expect(await text('[data-testid=action-result]')).toContain(`${runId}.csv`);
  });

  it('shows a read-only token the actions disabled, with the reason, while reads and exports still work', async () => {
    await setToken(readToken);
    try {
      await openRun(runId);
      await page.reload(); // the token is read when the page loads
      await page.locator('[data-testid=actions-disabled-reason]').waitFor();
      expect(await text('[data-testid=actions-disabled-reason]')).toContain('read-only');
      for (const action of ['action-cancel', 'action-resume', 'action-rerun-estimate']) {
        expect(await page.locator(`[data-testid=${action}]`).isDisabled()).toBe(true);
        expect(await page.locator(`[data-testid=${action}]`).getAttribute('title')).toMatch(/^Disabled: this token is read-only/);
      }
      expect(await page.locator('[data-testid=action-export]').isDisabled()).toBe(false);
      expect(await page.locator('[data-testid=leaderboard-row]').count()).toBe(2);
      // The API refuses it too, with the same reason.
      const refused = await fetch(`${url}/api/runs/${runId}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${readToken}` } });
      expect(refused.status).toBe(401);
      await screenshot(page, 'actions-4-read-only');
      await page.goto(`${url}/#/runs`);
      await page.locator('[data-testid=start-disabled-reason]').waitFor();
    } finally {
      await setToken(token);
      await page.reload();
    }
  });

  it('shows a new run in an idle list, keeps its page live across an API restart, and its ETA at half way is near the real end', async () => {
    await page.goto(`${url}/#/runs`);
    await page.locator('[data-testid=run-row]').first().waitFor();
    const config = sweepText('cacheNamespace: actions-live\n', 30);
    const res = await fetch(`${url}/api/runs`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ config, source: 'actions-live.yaml' }),
    });
    expect(res.status).toBe(201);
    const liveId = ((await res.json()) as { runId: string }).runId;
    // The list was idle (no run running): the new run shows up without a reload.
    const listed = Date.now();
    await page.locator(`[data-testid=run-row][data-run-id="${liveId}"]`).waitFor({ timeout: 15_000 });
    console.log(`live run: listed after ${((Date.now() - listed) / 1000).toFixed(1)} s`);

    // One worker, started when the API goes away: a run of a few dozen seconds.
    await openRun(liveId);
    await page.evaluate('window.notReloaded = true');
    const settled = async () => Number(await page.locator('[data-testid=overall-progress]').getAttribute('data-settled'));
    const planned = Number(await page.locator('[data-testid=overall-progress]').getAttribute('data-planned'));
    const before = await settled(); // the gold stages reused from the seeded run

    // The API goes away under the open page: the page keeps its data and says it is reconnecting; once the API is
    // back it goes on updating, without a reload.
    const t0 = Date.now();
    const step = (what: string) => console.log(`live run: ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    step('closing the API');
    await api!.app.close();
    api = undefined;
    step('API closed');
    e2e.startWorkers(1); // boots while the API is down (its first jobs were enqueued when the run was created)
    await page.locator('[data-testid=reconnecting]').first().waitFor({ timeout: 10_000 });
    await screenshot(page, 'actions-5-reconnecting');
    step('page reconnecting; starting the API');
    await startApi();
    step('API started');
    await waitFor('the page to reconnect', async () => ((await page.locator('[data-testid=reconnecting]').count()) === 0 ? true : undefined), 30_000, 200);
    step('API back, page reconnected');
    await waitFor('progress after the restart', async () => ((await settled()) > before ? true : undefined), 60_000, 200);
    expect(await page.evaluate('window.notReloaded === true')).toBe(true);
    step('progress shown after the restart');

    // What the page shows until the run is done: the ETA shown once half the stage jobs are settled is compared with
    // when the run really ended.
    const samples: Array<{ at: number; settled: number; eta: number | null }> = [];
    await waitFor('the run to finish on the page', async () => {
      if ((await text('[data-testid=run-status]')) !== 'running') return true;
      const bar = page.locator('[data-testid=overall-progress]');
      const [s, eta] = await Promise.all([bar.getAttribute('data-settled', { timeout: 1000 }), page.locator('[data-testid=eta]').getAttribute('data-eta-seconds', { timeout: 1000 })]).catch(() => [null, null]);
      if (s !== null) samples.push({ at: Date.now(), settled: Number(s), eta: eta ? Number(eta) : null });
      return undefined;
    }, 180_000, 250);
    step('run done');
    const half = samples.find((x) => x.settled >= planned / 2 && x.eta !== null);
    if (!half) throw new Error(`no ETA shown at half way: ${JSON.stringify(samples.filter((_, i) => i % 4 === 0))}`);
    const { finished_at } = await e2e.db.selectFrom('runs').select('finished_at').where('id', '=', liveId).executeTakeFirstOrThrow();
    const actual = (finished_at!.getTime() - half.at) / 1000;
    console.log(`ETA at ${half.settled}/${planned} stage jobs: ${half.eta!.toFixed(1)} s; the run ended ${actual.toFixed(1)} s later`);
    expect(Math.abs(half.eta! - actual)).toBeLessThanOrEqual(ETA_TOLERANCE(actual));
    expect(await page.evaluate('window.notReloaded === true')).toBe(true);
    await screenshot(page, 'actions-6-live-done');
  });
});

/** RFC 4180 CSV (quoted fields may hold commas, quotes and line breaks) into rows of fields. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; } else if (c === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; } else field += c;
  }
  if (field !== '' || row.length > 0) { row.push(field); rows.push(row); }
  return rows;
}
