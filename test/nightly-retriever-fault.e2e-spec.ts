import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { OrchestratorCore, ScheduleService, type RegressionAlertPayload, type RegressionCheck } from '@sqlsweep/orchestration';
import type { StageFaults } from '@sqlsweep/pipelines';
import { repoRoot, startWorkers, waitFor } from '@sqlsweep/testing';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { runRow } from './support/stored-results';

jest.setTimeout(300_000);

/** A webhook receiver on 127.0.0.1 that keeps every JSON body posted to it. */
async function startReceiver(): Promise<{ url: string; bodies: RegressionAlertPayload[]; close(): Promise<void> }> {
  const bodies: RegressionAlertPayload[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d));
    req.on('end', () => {
      bodies.push(JSON.parse(text) as RegressionAlertPayload);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/alerts`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const ITEMS = 30;
/** RB-SQL at its smallest: TR -> CR -> one zero-shot generation, no shots, no correction rounds. */
const sweep = [
  'name: nightly-rb-sql',
  'dataset: minibench',
  'split: dev',
  `items: { limit: ${ITEMS} }`,
  'models: [sim-strong]',
  'pipelines:',
  '  - pipeline: rb-sql',
  '    grid: { theta: [4], mu: [2], shots: [0], skeletonOrganization: [false], errorCorrection: [false], temperature: [0] }',
  'seed: 7',
  '',
].join('\n');

/**
 * Two schedules over the same small RB-SQL sweep, fired by hand (their cron is yearly) at two "nights". Between the
 * nights a release with a broken table retriever is deployed: the test-only switch SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER,
 * on in the planning process and the workers alike (docs/architecture.md, "Test-only fault switches"). The schedule
 * fired on the healthy release a second time must raise nothing; the one fired on the broken release must raise an
 * alert naming rb-sql.tables among the stages whose outputs changed.
 */
describe('a nightly schedule catches a table retriever broken on purpose', () => {
  const broken = 'rb-sql-retriever-broken';
  const unchanged = 'rb-sql-retriever-unchanged';
  const night1 = new Date('2026-11-24T02:00:00.000Z');
  const night2 = new Date('2026-11-25T02:00:00.000Z');
  let e2e: E2eStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let schedulesFile: string;
  let deployment: { core: OrchestratorCore; service: ScheduleService } | undefined;
  const workerLines: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    e2e = await startE2eStack({ workers: 0, simulator: { config: 'test/fixtures/llm-sim-prompt-aware.yaml' } });
    e2e.writeFile('nightly-rb-sql.yaml', sweep);
    schedulesFile = e2e.writeFile('schedules.yaml', [
      `alerts:\n  webhookUrl: ${receiver.url}`,
      'schedules:',
      ...[broken, unchanged].map((name) => `  ${name}:\n    cron: "0 3 1 1 *"\n    timezone: UTC\n    sweep: ${join(e2e.dataDir, 'nightly-rb-sql.yaml')}`),
    ].join('\n'));
  });

  afterAll(async () => {
    await undeploy();
    await e2e?.stop();
    await receiver?.close();
  });

  /** Orchestrator (in this process) and two workers of one release: healthy, or with the given fault switches on. */
  async function deploy(faults: StageFaults): Promise<void> {
    const env = faults.tableRetriever ? { SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER: faults.tableRetriever } : {};
    e2e.workers.push(...startWorkers(2, { ...e2e.env, ...env }, (line) => workerLines.push(line)));
    const core = new OrchestratorCore({
      databaseUrl: e2e.databaseUrl, redisUrl: process.env.REDIS_URL!, queuePrefix: e2e.prefix,
      modelsFile: join(repoRoot, 'configs/models.yaml'), providerEnv: { SQLSWEEP_LLM_SIM_URL: e2e.sim.url },
      retrieval: { dataDir: e2e.dataDir }, faults,
    });
    core.startAdvancing();
    const service = new ScheduleService(core, { redisUrl: process.env.REDIS_URL!, queuePrefix: e2e.prefix, schedulesFile, checkEveryMs: 300, resamples: 4000 });
    deployment = { core, service };
    await service.start();
  }

  async function undeploy(): Promise<void> {
    await deployment?.service.close();
    await deployment?.core.close();
    deployment = undefined;
    await e2e?.stopWorkers();
  }

  /** Fires `schedule` for the night `firedAt` as its job scheduler would, and waits for the run to finish and be checked. */
  async function fire(schedule: string, firedAt: Date): Promise<{ runId: string; check: RegressionCheck }> {
    const { core, service } = deployment!;
    await core.queue.enqueue('schedule.fire', { schedule, firedAt: firedAt.toISOString() }, { key: `${schedule}-${firedAt.getTime()}` });
    const runId = await waitFor(`${schedule} to fire for ${firedAt.toISOString()}`, async () => {
      const f = (await service.repository.firesOf(schedule)).find((r) => r.firedAt.getTime() === firedAt.getTime());
      if (f?.error) throw new Error(`the fire failed: ${f.error}`);
      return f?.runId ?? undefined;
    }, 60_000, 100);
    await waitFor(`${schedule}'s run to finish`, async () => ((await runRow(e2e.db, runId)).status === 'done' ? true : undefined), 120_000, 200);
    const check = await waitFor(`${schedule}'s run to be checked`, () => service.repository.getCheck(runId), 30_000, 100);
    return { runId, check: check as unknown as RegressionCheck };
  }

  const changedOf = (check: RegressionCheck) => Object.fromEntries(check.changedStages.map((s) => [s.stage, s.changed]));
  const stageRows = (runId: string, stage: string) => e2e.db.selectFrom('stage_results').innerJoin('run_stages', 'run_stages.stage_key', 'stage_results.stage_key')
    .select(['stage_results.output', 'stage_results.trace']).where('run_stages.run_id', '=', runId).where('stage_results.stage', '=', stage).execute();
  const tableOutputs = (runId: string) => stageRows(runId, 'rb-sql.tables');

  it('raises no alert for an unchanged second night, and one naming rb-sql.tables when the retriever returns wrong tables', async () => {
    await deploy({});
    const [broken1, unchanged1] = await Promise.all([fire(broken, night1), fire(unchanged, night1)]);
    const first = { broken: broken1, unchanged: unchanged1 };
    for (const f of Object.values(first)) expect(f.check).toMatchObject({ previousRunId: null, regressed: false });
    const [v1] = (await service().repository.scheduleRuns(broken))[0].summaries;
    // Night 1 must leave room for a drop the bootstrap can see.
    expect(v1.ex).toBeGreaterThan(30);

    // The same release again: same prompts, same common random numbers, so nothing changes and nothing is raised.
    const control = await fire(unchanged, night2);
    expect(control.check).toMatchObject({ previousRunId: first.unchanged.runId, regressed: false });
    expect(control.check.variants).toHaveLength(1);
    expect(control.check.variants[0]).toMatchObject({ pairedItems: ITEMS, delta: 0, regressed: false });
    expect(changedOf(control.check)['rb-sql.tables']).toBe(0);
    // No stage changed: evaluate's VES timings, which differ from night to night, are not compared.
    expect(control.check.changedStages.filter((s) => s.changed > 0)).toEqual([]);

    // Deploy the broken retriever (planner and workers), then night 2 of the other schedule.
    await undeploy();
    workerLines.length = 0;
    await deploy({ tableRetriever: 'wrong-tables' });
    const faulty = await fire(broken, night2);
    expect(workerLines.some((l) => l.includes('TEST FAULT SWITCH ON in this worker: SQLSWEEP_TEST_FAULT_TABLE_RETRIEVER=wrong-tables'))).toBe(true);
    // The broken stage ran (it was keyed apart, not reused from night 1) and says so in its output.
    const outputs = await tableOutputs(faulty.runId);
    expect(outputs).toHaveLength(ITEMS);
    expect(outputs.every((r) => (r.output as { testFault?: string }).testFault === 'wrong-tables')).toBe(true);
    expect((await tableOutputs(first.broken.runId)).some((r) => 'testFault' in (r.output as object))).toBe(false);

    // Why: the simulator saw prompts without the gold's tables (its report is in each generation's trace).
    const generations = await stageRows(faulty.runId, 'rb-sql.generate-plain');
    expect(generations.map((r) => (r.trace as { simulation?: { features: { goldReachable: boolean } } }).simulation?.features.goldReachable))
      .toEqual(Array(ITEMS).fill(false));
    expect(faulty.check).toMatchObject({ previousRunId: first.broken.runId, regressed: true });
    const [v] = faulty.check.variants;
    expect(v).toMatchObject({ pairedItems: ITEMS, regressed: true });
    expect(v.high).toBeLessThan(0);
    const changed = changedOf(faulty.check);
    expect(changed['rb-sql.tables']).toBe(ITEMS);
    expect(changed.gold).toBe(0);

    await waitFor('the regression alert to be delivered', async () => (receiver.bodies.length > 0 ? true : undefined), 30_000, 100);
    await service().tickOnce();
    expect(receiver.bodies).toHaveLength(1); // the control raised none
    const [alert] = receiver.bodies;
    expect(alert).toMatchObject({ type: 'regression', schedule: broken, runId: faulty.runId, regressed: true });
    expect(alert.changedStages).toContainEqual({ stage: 'rb-sql.tables', compared: ITEMS, changed: ITEMS });
    expect(alert.text).toMatch(new RegExp(`Stages whose outputs changed: .*rb-sql\\.tables \\(${ITEMS}/${ITEMS}\\)`));
  });

  const service = () => deployment!.service;
});
