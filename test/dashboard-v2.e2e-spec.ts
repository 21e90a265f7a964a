import { join } from 'node:path';
import type { Page } from 'playwright-core';
// nx-ignore-next-line
import { buildDashboard } from '@sqlsweep/dashboard';
import { ScheduleRepository, verdictCategorySql } from '@sqlsweep/db';
import { OrchestratorCore, ScheduleService, type RegressionCheck } from '@sqlsweep/orchestration';
import { repoRoot, waitFor } from '@sqlsweep/testing';
import { launchBrowser, screenshot, type Browser } from './support/browser';
import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { startOrchestrator, type Orchestrator } from './support/orchestrator';
import { contrastFailures, horizontalOverflow } from './support/page-checks';
import { runRow } from './support/stored-results';

jest.setTimeout(300_000);

const token = 'dashboard-v2-e2e-token-0123456789';
const schedule = 'v2-nightly';
/** Four variants (two models × two temperatures) over 16 items: the weak model fails often, some of its SQL fails to run. */
const gridSweep = [
  'name: v2-grid', 'dataset: minibench', 'split: dev', 'items: { limit: 16 }', 'models: [sim-strong, sim-weak]',
  'pipelines:', '  - pipeline: zero-shot', '    grid:', '      temperature: [0, 0.7]', 'seed: 11', '',
].join('\n');
/** The nightly sweep: one variant over 24 items; the second night runs against a degraded model. */
const nightlySweep = ['name: v2-nightly', 'dataset: minibench', 'split: dev', 'items: { limit: 24 }', 'models: [sim-strong]',
  'pipelines:', '  - pipeline: zero-shot', '    grid:', '      temperature: [0]', 'seed: 7', ''].join('\n');

/**
 * Dashboard v2 in Chromium over a seeded grid run and two nights of a schedule (the second regressed): the matrix
 * leads to a failing variant's trace, the trends page to the regressed stages and flipped items, every page fits
 * 390 and 1,440 px and meets AA contrast. Every figure is checked against Postgres.
 */
describe('dashboard v2 in a browser', () => {
  let e2e: E2eStack;
  let orchestrator: Orchestrator | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let url: string;
  let runId: string;
  let nights: { first: string; second: string };

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 2 });
    const run = await e2e.runSweep(e2e.writeFile('v2-grid.yaml', gridSweep));
    expect(run.code).toBe(0);
    runId = runIdOf(run.stdout);

    // Two nights, fired by hand (the cron is yearly); the model degrades between them.
    const schedulesFile = e2e.writeFile('schedules.yaml', `schedules:\n  ${schedule}:\n    cron: "0 3 1 1 *"\n    timezone: UTC\n    sweep: ${e2e.writeFile('v2-nightly.yaml', nightlySweep)}\n`);
    const core = new OrchestratorCore({
      databaseUrl: e2e.databaseUrl, redisUrl: process.env.REDIS_URL!, queuePrefix: e2e.prefix,
      modelsFile: join(repoRoot, 'configs/models.yaml'), providerEnv: { SQLSWEEP_LLM_SIM_URL: e2e.sim.url },
    });
    core.startAdvancing();
    const service = new ScheduleService(core, { redisUrl: process.env.REDIS_URL!, queuePrefix: e2e.prefix, schedulesFile, checkEveryMs: 200, resamples: 2000 });
    const fire = async (firedAt: Date) => {
      await core.queue.enqueue('schedule.fire', { schedule, firedAt: firedAt.toISOString() }, { key: `${schedule}-${firedAt.getTime()}` });
      const id = await waitFor('the fire to create a run', async () => {
        const f = (await service.repository.firesOf(schedule)).find((r) => r.firedAt.getTime() === firedAt.getTime());
        if (f?.error) throw new Error(`the fire failed: ${f.error}`);
        return f?.runId ?? undefined;
      }, 60_000, 100);
      await waitFor('the night to finish', async () => ((await runRow(e2e.db, id)).status === 'done' ? true : undefined), 120_000, 200);
      await waitFor('the night to be checked', () => service.repository.getCheck(id), 30_000, 100);
      return id;
    };
    try {
      await service.start();
      const first = await fire(new Date('2026-11-20T03:00:00Z'));
      await e2e.restartSimulator({ config: 'test/fixtures/llm-sim-degraded.yaml' });
      const second = await fire(new Date('2026-11-21T03:00:00Z'));
      nights = { first, second };
    } finally {
      await service.close();
      await core.close();
    }
    await e2e.stopWorkers();

    await buildDashboard();
    orchestrator = await startOrchestrator(e2e, token, { SQLSWEEP_SCHEDULES_FILE: schedulesFile });
    url = orchestrator.url;
    browser = await launchBrowser();
    page = browser.page;
    await browser.context.addInitScript({ content: `localStorage.setItem('sqlsweep.apiToken', ${JSON.stringify(token)});` });
  });

  afterAll(async () => {
    await browser?.close();
    await orchestrator?.app.close();
    await e2e?.stop();
  });

  /** Item results of a run with their verdict category, by the one SQL rule. */
  async function categories(id: string) {
    return e2e.db.selectFrom('item_results as ir').select(['ir.variant_id', 'ir.item_id', 'ir.correct', verdictCategorySql('ir').as('category')])
      .where('ir.run_id', '=', id).execute();
  }
  const api = async (path: string) => fetch(`${url}/api${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('resolves 8-character ids in the API and in URLs, and answers unknown ones with a Not found page', async () => {
    const short = runId.slice(0, 8);
    const res = await api(`/runs/${short}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { run: { id: string } }).run.id).toBe(runId);
    const variants = (await (await api(`/runs/${runId}/variants`)).json()) as Array<{ id: string }>;
    const item = (await categories(runId))[0];
    expect((await api(`/runs/${short}/variants/${variants[0].id.slice(0, 8)}/items/${item.item_id}/stages`)).status).toBe(200);
    const compared = await api(`/compare?runA=${short}&variantA=${variants[0].id}&runB=${short}&variantB=${variants[1].id}`);
    expect(compared.status).toBe(200);
    expect(((await compared.json()) as { a: { runId: string } }).a.runId).toBe(runId);
    expect((await api('/runs/zz-not-hex')).status).toBe(400);
    const missing = runId.startsWith('0') ? 'ffffffff' : '00000000';
    expect((await api(`/runs/${missing}`)).status).toBe(404);

    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${url}/#/runs/${short}`);
    await page.locator('[data-testid=leaderboard-row]').first().waitFor();
    await page.goto(`${url}/#/runs/${missing}`);
    await page.locator('[data-testid=not-found]').waitFor();
    expect(await page.locator('[data-testid=not-found]').textContent()).toContain(`no run ${missing}`);
    await page.goto(`${url}/#/no/such/page`);
    await page.locator('[data-testid=not-found]').waitFor();
  });

  it('the matrix counts each mode as Postgres has it, and a failing cell opens that variant\'s trace in one click', async () => {
    const rows = await categories(runId);
    const byItem = new Map<string, typeof rows>();
    for (const r of rows) byItem.set(r.item_id, [...(byItem.get(r.item_id) ?? []), r]);
    const items = [...byItem.values()];
    const expected = {
      all: items.length,
      failures: items.filter((rs) => rs.some((r) => !r.correct)).length,
      'sql-errors': items.filter((rs) => rs.some((r) => r.category === 'sql-error')).length,
      disagree: items.filter((rs) => rs.some((r) => r.correct) && rs.some((r) => !r.correct)).length,
    };
    expect(expected.failures).toBeGreaterThan(0);

    await page.goto(`${url}/#/runs/${runId}`);
    await page.locator('[data-testid=matrix-link]').click();
    await page.locator('[data-testid=matrix]').waitFor();
    for (const [mode, n] of Object.entries(expected)) expect(await page.locator(`[data-testid=mode-${mode}] .count`).textContent()).toBe(String(n));
    expect(await page.locator('[data-testid=matrix-row]').count()).toBe(Math.min(50, expected.failures));
    await screenshot(page, 'v2-matrix-1440');

    // Every shown cell is the variant's stored category.
    const shown = await page.locator('[data-testid=matrix-row]').evaluateAll((trs) => trs.flatMap((tr) => Array.from(tr.querySelectorAll('[data-testid=matrix-cell]') as ArrayLike<typeof tr>).map((td) => ({
      item: tr.getAttribute('data-item-id')!, variant: td.getAttribute('data-variant-id')!, category: td.getAttribute('data-category'),
    }))));
    for (const c of shown) expect(c.category).toBe(rows.find((r) => r.item_id === c.item && r.variant_id === c.variant)!.category);

    // A failing cell, a SQL error if there is one: one click (here the keyboard: focus it, Enter) to its trace.
    const target = shown.find((c) => c.category === 'sql-error') ?? shown.find((c) => c.category !== 'correct')!;
    await page.locator(`[data-testid=matrix-row][data-item-id="${target.item}"] [data-testid=matrix-cell][data-variant-id="${target.variant}"] a`).focus();
    await page.keyboard.press('Enter');
    const card = page.locator(`[data-testid=item-variant][data-variant-id="${target.variant}"]`);
    await card.waitFor();
    expect(await page.locator('[data-testid=item-variant]').count()).toBe(1);
    expect(await card.locator('[data-testid=verdict]').first().getAttribute('data-category')).toBe(target.category);
    const stages = card.locator('[data-testid=stage-trace]');
    expect(await stages.count()).toBeGreaterThan(0);
    expect(await card.locator('[data-testid=sql-diff]').isVisible()).toBe(true);
    // The prompt of the LLM stage: a second click.
    const llm = card.locator('[data-testid=stage-trace]:has([data-testid=stage-prompt]) summary').first();
    await llm.focus();
    await page.keyboard.press('Enter');
    expect(await card.locator('[data-testid=stage-prompt]').first().isVisible()).toBe(true);
    const stored = await e2e.db.selectFrom('item_results').select(['predicted_sql']).where('run_id', '=', runId).where('variant_id', '=', target.variant).where('item_id', '=', target.item).executeTakeFirstOrThrow();
    expect((await card.locator('[data-testid=predicted-sql]').textContent())!.trim()).toBe((stored.predicted_sql ?? '(no SQL produced)').trim());
    // The jump menu leads to the other variants of the item.
    expect(await page.locator('[data-testid=variant-jump] a').count()).toBe(4);
    await screenshot(page, 'v2-item-1440');
  });

  it('the regressed stages and the flipped items are on the trends page, each item one click from its trace', async () => {
    const check = (await new ScheduleRepository(e2e.db).getCheck(nights.second))!;
    expect(check.regressed).toBe(true);
    const changed = (check.changedStages as RegressionCheck['changedStages']).filter((s) => s.changed > 0);
    const before = new Map((await categories(nights.first)).map((r) => [r.item_id, r.correct]));
    const flipped = (await categories(nights.second)).filter((r) => before.get(r.item_id) === true && !r.correct).map((r) => r.item_id).sort();
    expect(flipped.length).toBeGreaterThan(0);

    await page.goto(`${url}/#/trends`);
    const detail = page.locator(`[data-testid=regression-detail][data-run-id="${nights.second}"]`);
    await detail.waitFor();
    const stageRows = await detail.locator('[data-testid=changed-stage]').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-stage'), Number(tr.getAttribute('data-changed'))]));
    expect(Object.fromEntries(stageRows)).toEqual(Object.fromEntries(changed.map((s) => [s.stage, s.changed])));
    expect(stageRows.map(([s]) => s)).toContain('zero-shot.generate');
    expect((await detail.locator('[data-testid=flipped-item]').allTextContents()).sort()).toEqual(flipped);
    await screenshot(page, 'v2-trends-1440');

    await detail.locator('[data-testid=flipped-item]').first().click();
    await page.locator('[data-testid=item-variant]').waitFor();
    expect(await page.locator('[data-testid=item-variant] [data-testid=verdict]').first().getAttribute('data-category')).not.toBe('correct');

    await page.goto(`${url}/#/trends`);
    await detail.locator('[data-testid=compare-nights]').click();
    await page.locator('[data-testid=compare-delta]').waitFor();
  });

  it('the parameter sweep defaults to the grid knob, names series by the knob that varies, draws 95 % error bars in distinct colours', async () => {
    await page.goto(`${url}/#/runs/${runId}/sweep`);
    await page.locator('[data-testid=param-sweep]').waitFor();
    expect(await page.locator('[data-testid=knob]').inputValue()).toBe('temperature');
    const rows = (await page.locator('[data-testid=sweep-row] td:first-child').allTextContents()).sort();
    expect(rows).toEqual(['model=sim-strong', 'model=sim-weak']);
    expect(await page.locator('[data-testid=error-bar]').count()).toBe(4);
    const colours = await page.locator('[data-testid=series]').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-colour')));
    expect(new Set(colours).size).toBe(colours.length);
  });

  it('every page fits 390 and 1,440 px wide, and its text meets 4.5:1 contrast', async () => {
    const variants = (await (await api(`/runs/${runId}/variants`)).json()) as Array<{ id: string }>;
    const item = (await categories(runId))[0].item_id;
    const pages: Array<[string, string, string]> = [
      ['runs', '#/runs', '[data-testid=run-row]'],
      ['run', `#/runs/${runId}`, '[data-testid=leaderboard-row]'],
      ['matrix', `#/runs/${runId}/matrix`, '[data-testid=matrix]'],
      ['items', `#/runs/${runId}/items`, '[data-testid=items-table]'],
      ['item', `#/runs/${runId}/items/${item}?variant=${variants[1].id}`, '[data-testid=item-variant]'],
      ['sweep', `#/runs/${runId}/sweep`, '[data-testid=param-sweep]'],
      ['compare', `#/compare?runA=${runId}&variantA=${variants[0].id}&runB=${runId}&variantB=${variants[1].id}`, '[data-testid=compare-delta]'],
      ['trends', '#/trends', '[data-testid=regression-detail]'],
      ['not-found', `#/runs/${runId.startsWith('0') ? 'ffffffff' : '00000000'}`, '[data-testid=not-found]'],
    ];
    const problems: string[] = [];
    for (const [width, height] of [[390, 844], [1440, 900]]) {
      await page.setViewportSize({ width, height });
      for (const [name, hash, ready] of pages) {
        await page.goto(`${url}/${hash}`);
        await page.locator(ready).first().waitFor();
        await page.waitForLoadState('networkidle');
        await screenshot(page, `v2-${name}-${width}x${height}`);
        if (width === 390 && (name === 'run' || name === 'runs')) {
          // The figures people come for stay on screen at 390 px: EX on the run page, progress on the runs list.
          const box = await page.locator(name === 'run' ? '[data-testid=leaderboard-row] [data-col=ex]' : '[data-testid=run-row] td:last-child').first().boundingBox();
          if (!box || box.x < 0 || box.x + box.width > width) problems.push(`${name} at ${width} px: ${name === 'run' ? 'EX' : 'progress'} is off screen (${JSON.stringify(box)})`);
        }
        const overflow = await horizontalOverflow(page);
        if (overflow > 0) problems.push(`${name} at ${width} px is ${overflow} px wider than the viewport`);
        for (const f of await contrastFailures(page)) problems.push(`${name} at ${width} px: "${f.text}" (${f.tag}) ${f.ratio}:1 < ${f.needed}:1 (${f.colour} on ${f.background})`);
      }
    }
    expect(problems).toEqual([]);

    // The checks can fail: a grey-on-white line (2.85:1) and a block wider than the viewport are caught.
    await page.evaluate(`document.querySelector('main').insertAdjacentHTML('beforeend',
      '<p style="color:#999999;background:#ffffff">low-contrast probe</p><div style="width:2000px;height:1px"></div>')`);
    expect((await contrastFailures(page)).map((f) => f.text)).toContain('low-contrast probe');
    expect(await horizontalOverflow(page)).toBeGreaterThan(0);
  });
});
