import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScheduleRepository } from '@sqlsweep/db';
// nx-ignore-next-line
import { minibenchDir, useTestCore } from '@sqlsweep/testing';
import { OrchestratorCore } from '../core';
import { registerDataset } from '../register-dataset';
import { RegressionChecker, type RegressionAlertPayload } from './regression-checker';
import { ScheduleFirer } from './schedule-firer';
import { parseSchedulesFile } from './schedules-file';

/**
 * Three nights of a two-variant schedule whose stage outputs the test writes itself (as workers would), so the
 * outcome of every item is known: night 2 breaks the strong variant, night 3 repeats night 2.
 */
describe('regression checks of finished scheduled runs (real Postgres)', () => {
  const testCore = useTestCore(OrchestratorCore);
  let firer: ScheduleFirer;
  let schedules: ScheduleRepository;

  beforeAll(async () => {
    const { core, dataDir: dir } = testCore;
    await registerDataset(core.datasets, { name: 'minibench', format: 'minibench', path: minibenchDir, dataDir: dir });
    writeFileSync(join(dir, 'sweep.yaml'), 'name: two-models\ndataset: minibench\nitems: { limit: 30 }\nmodels: [sim-strong, sim-weak]\npipelines:\n  - pipeline: zero-shot\n');
    const file = parseSchedulesFile(`schedules:\n  two: { cron: "0 2 * * *", sweep: ${join(dir, 'sweep.yaml')} }\n`, 'schedules.yaml');
    schedules = new ScheduleRepository(core.db);
    firer = new ScheduleFirer({ planner: core.planner, advancer: core.advancer, schedules, file: () => file, baseDir: dir });
  });
  /** Writes every stage output of a run: `correct(model, index)` decides each item; `tag` makes the generated SQL differ per night. */
  async function complete(runId: string, correct: (model: string, index: number) => boolean, tag: (model: string) => string, scorer = 'bird-ex@2'): Promise<void> {
    const rows = await testCore.database.db.selectFrom('run_stages as rs').innerJoin('variants as v', 'v.id', 'rs.variant_id')
      .select(['rs.stage', 'rs.stage_key', 'rs.item_id', 'v.model']).where('rs.run_id', '=', runId).orderBy('rs.item_id').execute();
    const items = [...new Set(rows.map((r) => r.item_id))];
    for (const r of rows) {
      const ok = correct(r.model, items.indexOf(r.item_id));
      const sqlText = `SELECT ${ok ? 'gold' : 'wrong'} /* ${tag(r.model)} */`;
      const output = r.stage === 'gold' ? { columns: ['x'], rows: [[1]] }
        : r.stage === 'zero-shot.generate' ? { sql: sqlText }
          : { correct: ok, errored: false, reason: ok ? 'same result' : 'different result', predictedSql: sqlText, scorer };
      await testCore.core.stages.saveResult({ stageKey: r.stage_key, stage: r.stage, output, simulated: true, machine: 'test' });
    }
    expect(await testCore.core.advancer.reconcile(runId)).toMatchObject({ finished: true });
  }

  it('compares each night with the previous one per variant, alerting only on a drop whose interval excludes zero', async () => {
    const checker = new RegressionChecker({ schedules, resamples: 2000 });
    const good = (_model: string, i: number) => i % 10 < 8; // 80 %
    const strongBroken = (model: string, i: number) => (model === 'sim-strong' ? i % 10 < 2 : i % 10 < 8); // strong 20 %

    const n1 = await firer.fire('two', new Date('2026-11-20T02:00:00Z'));
    await complete(n1.runId, good, () => 'night1');
    const first = await checker.tick();
    expect(first.checked).toMatchObject([{ runId: n1.runId, previousRunId: null, regressed: false, variants: [], changedStages: [] }]);

    const n2 = await firer.fire('two', new Date('2026-11-21T02:00:00Z'));
    await complete(n2.runId, strongBroken, (model) => (model === 'sim-strong' ? 'night2' : 'night1'));
    const second = await checker.tick();
    expect(second.delivered).toBe(0); // no webhook configured: the alert is stored for the dashboard only
    const [check] = second.checked;
    expect(check).toMatchObject({ runId: n2.runId, previousRunId: n1.runId, regressed: true, simulated: true });
    const byModel = Object.fromEntries(check.variants.map((v) => [v.label.includes('sim-strong') ? 'strong' : 'weak', v]));
    expect(byModel.strong).toMatchObject({ pairedItems: 30, exPrevious: 80, exCurrent: 20, delta: -60, flippedToWrong: 18, flippedToRight: 0, regressed: true, scorerPrevious: 'bird-ex@2', scorerCurrent: 'bird-ex@2' });
    expect(byModel.strong.high).toBeLessThan(0);
    expect(byModel.strong.mcnemarP).toBeCloseTo(2 * 0.5 ** 18, 12);
    expect(byModel.weak).toMatchObject({ pairedItems: 30, exPrevious: 80, exCurrent: 80, delta: 0, low: 0, high: 0, regressed: false });
    expect(check.changedStages).toEqual([
      { stage: 'evaluate', compared: 60, changed: 30 },
      { stage: 'gold', compared: 60, changed: 0 },
      { stage: 'zero-shot.generate', compared: 60, changed: 30 },
    ]);

    const alerts = await schedules.listAlerts({ schedule: 'two' });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ runId: n2.runId, webhookUrl: null, deliveredAt: null, attempts: 0 });
    const payload = alerts[0].payload as RegressionAlertPayload;
    expect(payload).toMatchObject({ type: 'regression', previousFiredAt: '2026-11-20T02:00:00.000Z', firedAt: '2026-11-21T02:00:00.000Z' });
    expect(payload.text).toMatch(/EX 80\.0 -> 20\.0 \(-60\.0 pp, 95% CI -?[\d.]+\.\.-[\d.]+; scored by bird-ex@2\)/);
    expect(payload.text).toMatch(/zero-shot\.generate \(30\/60\), evaluate|evaluate \(30\/60\), zero-shot\.generate \(30\/60\)/);

    // Night 3 repeats night 2: compared with night 2, nothing regressed and no alert is added; checks are written once.
    const n3 = await firer.fire('two', new Date('2026-11-22T02:00:00Z'));
    await complete(n3.runId, strongBroken, (model) => (model === 'sim-strong' ? 'night2' : 'night1'));
    const third = await checker.tick();
    expect(third.checked).toMatchObject([{ runId: n3.runId, previousRunId: n2.runId, regressed: false }]);
    expect(third.checked[0].changedStages.every((s) => s.changed === 0)).toBe(true);
    expect(await checker.tick()).toEqual({ checked: [], delivered: 0 });
    expect(await schedules.listAlerts()).toHaveLength(1);
    expect((await schedules.scheduleRuns('two')).map((r) => r.regressed)).toEqual([false, true, false]);

    // Night 4 is scored by another scorer and drops the weak variant: the alert says the scorer changed, since the
    // drop may be the scorer's rather than the predictions'.
    const n4 = await firer.fire('two', new Date('2026-11-23T02:00:00Z'));
    await complete(n4.runId, (model, i) => (model === 'sim-strong' ? i % 10 < 2 : i % 10 < 1), () => 'night1', 'bird-ex-bag@1');
    const [fourth] = (await checker.tick()).checked;
    const weak = fourth.variants.find((v) => v.label.includes('sim-weak'))!;
    expect(weak).toMatchObject({ scorerPrevious: 'bird-ex@2', scorerCurrent: 'bird-ex-bag@1', regressed: true });
    const [latest] = await schedules.listAlerts({ schedule: 'two' });
    expect((latest.payload as RegressionAlertPayload).text).toMatch(/sim-weak.*scorer changed from bird-ex@2 to bird-ex-bag@1, so the drop may come from the scorer/);
    // The trend view's EX names its scorer (as the evaluate stage stored it), per variant of every night, newest first.
    expect((await schedules.scheduleRuns('two')).map((r) => r.summaries.map((x) => x.scorer))).toEqual([
      ['bird-ex-bag@1', 'bird-ex-bag@1'], ['bird-ex@2', 'bird-ex@2'], ['bird-ex@2', 'bird-ex@2'], ['bird-ex@2', 'bird-ex@2'],
    ]);
  });
});
