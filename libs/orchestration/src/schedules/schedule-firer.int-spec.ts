import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScheduleRepository } from '@sqlsweep/db';
import { UnrecoverableError } from '@sqlsweep/queue';
// nx-ignore-next-line
import { minibenchDir, repoRoot, useTestCore } from '@sqlsweep/testing';
import { OrchestratorCore } from '../core';
import { registerDataset } from '../register-dataset';
import { RegressionChecker } from './regression-checker';
import { ScheduleFirer } from './schedule-firer';
import { parseSchedulesFile } from './schedules-file';

describe('firing a schedule (real Postgres and Redis)', () => {
  const testCore = useTestCore(OrchestratorCore);
  let firer: ScheduleFirer;
  let schedules: ScheduleRepository;

  beforeAll(async () => {
    const { core, dataDir } = testCore;
    await registerDataset(core.datasets, { name: 'minibench', format: 'minibench', path: minibenchDir, dataDir });
    const badConfig = join(dataDir, 'bad.yaml');
    writeFileSync(badConfig, 'name: bad\ndataset: minibench\nmodels: [sim-strong]\npipelines:\n  - pipeline: no-such-pipeline\n');
    const file = parseSchedulesFile([
      'schedules:',
      '  ok: { cron: "0 2 * * *", sweep: test/fixtures/nightly-sweep.yaml }',
      '  missing: { cron: "0 2 * * *", sweep: configs/sweeps/nowhere.yaml }',
      `  bad: { cron: "0 2 * * *", sweep: ${badConfig} }`,
    ].join('\n'), 'schedules.yaml');
    schedules = new ScheduleRepository(core.db);
    firer = new ScheduleFirer({ planner: core.planner, advancer: core.advancer, schedules, file: () => file, baseDir: repoRoot });
  });
  const stageKeys = async (runId: string, stage: string) =>
    new Set((await testCore.database.db.selectFrom('run_stages').select('stage_key').where('run_id', '=', runId).where('stage', '=', stage).execute()).map((r) => r.stage_key));

  it('makes one nightly run per fire, however often the fire is delivered', async () => {
    const night1 = new Date('2026-11-20T02:00:00.000Z');
    const first = await firer.fire('ok', night1);
    expect(first.created).toBe(true);
    expect(await firer.fire('ok', night1)).toEqual({ runId: first.runId, created: false });
    const run = await testCore.database.db.selectFrom('runs').selectAll().where('id', '=', first.runId).executeTakeFirstOrThrow();
    expect(run).toMatchObject({ priority: 'nightly', cache_namespace: 'ok@2026-11-20T02:00:00.000Z', status: 'running', item_count: 40 });
    expect(await schedules.firesOf('ok')).toEqual([{ schedule: 'ok', firedAt: night1, cacheNamespace: 'ok@2026-11-20T02:00:00.000Z', runId: first.runId, error: null }]);

    // The next night asks the model again (new LLM stage keys) but shares the gold SQL stages.
    const second = await firer.fire('ok', new Date('2026-11-21T02:00:00.000Z'));
    expect(second.created).toBe(true);
    expect(await stageKeys(second.runId, 'gold')).toEqual(await stageKeys(first.runId, 'gold'));
    const generated = await stageKeys(first.runId, 'zero-shot.generate');
    expect([...(await stageKeys(second.runId, 'zero-shot.generate'))].filter((k) => generated.has(k))).toEqual([]);
    expect(await testCore.database.db.selectFrom('runs').select('id').execute()).toHaveLength(2);

    // Neither run has finished, so there is nothing to check yet.
    expect(await new RegressionChecker({ schedules, resamples: 100 }).tick()).toEqual({ checked: [], delivered: 0 });
  });

  it('gives up at once, recording why, on a schedule not in the file, a missing sweep file or a bad sweep config', async () => {
    const when = new Date('2026-11-20T02:00:00.000Z');
    await expect(firer.fire('gone', when)).rejects.toThrow(UnrecoverableError);
    await expect(firer.fire('gone', when)).rejects.toThrow(/schedule "gone" fired but is not in the schedules file/);
    await expect(firer.fire('missing', when)).rejects.toThrow(UnrecoverableError);
    expect((await schedules.firesOf('missing'))[0].error).toMatch(/nowhere\.yaml.*: file not found/);
    await expect(firer.fire('bad', when)).rejects.toThrow(UnrecoverableError);
    expect((await schedules.firesOf('bad'))[0]).toMatchObject({ runId: null, error: expect.stringMatching(/pipelines\[0\]\.pipeline/) });
  });
});
