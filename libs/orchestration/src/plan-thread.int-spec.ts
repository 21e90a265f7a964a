import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SweepConfigError } from '@sqlsweep/contracts';
import { ScheduleRepository } from '@sqlsweep/db';
// nx-ignore-next-line
import { createTestCore, minibenchDir, type TestCore, type TestDatabase, TempDirs } from '@sqlsweep/testing';
import { OrchestratorCore } from './core';
import { PlanThread } from './plan-thread';
import { registerDataset } from './register-dataset';
import { ScheduleFirer } from './schedules/schedule-firer';
import type { SchedulesFile } from './schedules/schedules-file';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

const sweep = 'name: thread-test\ndataset: minibench\nitems: { limit: 2 }\nmodels: [sim-strong]\npipelines:\n  - pipeline: zero-shot\n';

/** PlanThread against real Postgres and Redis: the run it creates is the one an in-process plan would. */
describe('PlanThread (real Postgres and Redis)', () => {
  let testCore: TestCore<OrchestratorCore>;
  let t: TestDatabase;
  let core: OrchestratorCore;
  let plans: PlanThread;

  beforeAll(async () => {
    testCore = await createTestCore(OrchestratorCore);
    ({ core, database: t } = testCore);
    await registerDataset(core.datasets, { name: 'minibench', format: 'minibench', path: minibenchDir, dataDir: testCore.dataDir });
    plans = new PlanThread(testCore.settings);
    await plans.start();
  });
  afterAll(async () => {
    await plans?.close();
    await testCore?.close();
  });

  it('plans, stores and enqueues a run in the thread; a dry run writes nothing', async () => {
    const dry = await plans.createRun({ configText: sweep, source: 'api', dryRun: true });
    expect(dry.runId).toBeUndefined();
    expect(dry.summary).toMatchObject({ variants: 1, items: 2, simulated: true });
    expect(await t.db.selectFrom('runs').select('id').execute()).toEqual([]);

    const created = await plans.createRun({ configText: sweep, source: 'api' });
    expect(created.summary).toEqual(dry.summary);
    const run = await core.runs.getRun(created.runId!);
    expect(run).toMatchObject({ status: 'running' });
    // Reconciled in the thread: the gold and generate stages of both items are waiting in BullMQ.
    const counts = await Promise.all(['stage-llm', 'stage-sql', 'stage-retrieval'].map((q) => core.queue.queue(q).getJobCounts('waiting', 'prioritized')));
    expect(counts.reduce((n, c) => n + c.waiting + c.prioritized, 0)).toBeGreaterThan(0);
  });

  it('passes a SweepConfigError back whole, so the API still answers 400 naming source, path and reason', async () => {
    const e = await plans.createRun({ configText: sweep.replace('minibench', 'nowhere'), source: 'x.yaml' }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(SweepConfigError);
    expect(e).toMatchObject({ source: 'x.yaml', path: 'dataset', reason: expect.stringMatching(/no registered dataset "nowhere"/) });
  });

  it('fires a schedule through the thread: one run per fire, however often it is delivered', async () => {
    const dir = temp.make('sqlsweep-thread-fire-');
    writeFileSync(join(dir, 'sweep.yaml'), sweep);
    const schedules = new ScheduleRepository(core.db);
    const firer = new ScheduleFirer({
      planner: core.planner, advancer: core.advancer, schedules, baseDir: dir, createRun: plans.createRun,
      file: (): SchedulesFile => ({ schedules: { nightly: { cron: '0 2 * * *', timezone: 'UTC', sweep: 'sweep.yaml' } }, alerts: {} }),
    });
    const when = new Date('2026-11-24T02:00:00Z');
    const first = await firer.fire('nightly', when);
    expect(first.created).toBe(true);
    expect(await firer.fire('nightly', when)).toEqual({ runId: first.runId, created: false });
    expect(await core.runs.getRun(first.runId)).toMatchObject({ priority: 'nightly' });
  });

  it('starts a new thread for the next request after the thread has ended', async () => {
    await plans.close();
    expect((await plans.createRun({ configText: sweep, source: 'api', dryRun: true })).summary.items).toBe(2);
  });
});
