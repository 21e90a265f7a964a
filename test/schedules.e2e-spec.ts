import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { queueKeyPrefix } from '@sqlsweep/queue';
import { OrchestratorCore, ScheduleService, type RegressionAlertPayload } from '@sqlsweep/orchestration';
import { repoRoot, waitFor } from '@sqlsweep/testing';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { runRow } from './support/stored-results';

jest.setTimeout(400_000);

/** A webhook receiver on 127.0.0.1 that refuses the first POST (503) and keeps every JSON body it accepts. */
async function startReceiver(): Promise<{ url: string; bodies: unknown[]; refused: number; close(): Promise<void> }> {
  const state = { bodies: [] as unknown[], refused: 0 };
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d));
    req.on('end', () => {
      if (state.refused === 0) {
        state.refused++;
        res.writeHead(503).end();
        return;
      }
      state.bodies.push(JSON.parse(text));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/alerts`, bodies: state.bodies, get refused() { return state.refused; },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('a nightly schedule fired twice, the second night degraded', () => {
  const schedule = 'e2e-fast';
  let e2e: E2eStack;
  let core: OrchestratorCore;
  let service: ScheduleService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let schedulesQueue: Queue;
  let schedulesEvents: QueueEvents;

  beforeAll(async () => {
    receiver = await startReceiver();
    e2e = await startE2eStack({ workers: 2 });
    schedulesQueue = new Queue('schedules', { connection: { url: process.env.REDIS_URL }, prefix: queueKeyPrefix(e2e.prefix, 'schedules') });
    schedulesEvents = new QueueEvents('schedules', { connection: { url: process.env.REDIS_URL }, prefix: queueKeyPrefix(e2e.prefix, 'schedules') });
    await schedulesEvents.waitUntilReady();
  });

  afterAll(async () => {
    await service?.close();
    await core?.close();
    await schedulesQueue?.obliterate({ force: true }).catch(() => undefined);
    await schedulesQueue?.close();
    await schedulesEvents?.close();
    await e2e?.stop();
    await receiver?.close();
  });

  const fires = () => service.repository.firesOf(schedule);
  const runOf = (id: string) => runRow(e2e.db, id);

  /**
   * Lets the waiting fire through and holds the queue again the moment its job starts, so the next fire (already
   * due if planning took longer than the cron interval on a loaded machine) waits until the test lets it through.
   */
  async function letOneFireThrough(count: number): Promise<string> {
    const started = new Promise<void>((resolve) => schedulesEvents.once('active', () => void schedulesQueue.pause().then(resolve)));
    await schedulesQueue.resume();
    await started;
    return waitFor(`fire ${count} to create a run`, async () => {
      const rows = await fires();
      if (rows.some((f) => f.error)) throw new Error(`a fire failed: ${rows.find((f) => f.error)!.error}`);
      return rows.length >= count && rows[count - 1].runId ? rows[count - 1].runId! : undefined;
    }, 120_000, 100);
  }

  it('creates one nightly run per fire and delivers exactly one regression alert naming the changed stages, retrying a refused delivery', async () => {
    const schedulesFile = e2e.writeFile('schedules.yaml', [
      `alerts:\n  webhookUrl: ${receiver.url}`,
      `schedules:\n  ${schedule}:\n    cron: "*/5 * * * * *"\n    timezone: UTC\n    sweep: test/fixtures/nightly-sweep.yaml`,
    ].join('\n'));
    core = new OrchestratorCore({
      databaseUrl: e2e.databaseUrl, redisUrl: process.env.REDIS_URL!, queuePrefix: e2e.prefix,
      modelsFile: join(repoRoot, 'configs/models.yaml'), providerEnv: { SQLSWEEP_LLM_SIM_URL: e2e.sim.url },
    });
    core.startAdvancing();
    service = new ScheduleService(core, { redisUrl: process.env.REDIS_URL!, queuePrefix: e2e.prefix, schedulesFile, baseDir: repoRoot, checkEveryMs: 300, resamples: 4000, alertRetryDelayMs: 500 });

    // Night 1 against the normal simulator.
    await schedulesQueue.pause();
    expect(await service.start()).toEqual({ added: [schedule], changed: [], removed: [], unchanged: [] });
    const first = await letOneFireThrough(1);
    await waitFor('night 1 to finish', async () => ((await runOf(first)).status === 'done' ? true : undefined), 180_000);
    await waitFor('night 1 to be checked', async () => service.repository.getCheck(first));
    expect(await service.repository.getCheck(first)).toMatchObject({ previousRunId: null, regressed: false });

    // The model gets worse overnight: the simulator comes back with a degraded config.
    await e2e.restartSimulator({ config: 'test/fixtures/llm-sim-degraded.yaml' });

    const second = await letOneFireThrough(2);
    await waitFor('night 2 to finish', async () => ((await runOf(second)).status === 'done' ? true : undefined), 180_000);
    await waitFor('the regression alert to be delivered', async () => (receiver.bodies.length > 0 ? true : undefined), 60_000);
    // Further check passes must not alert again.
    await new Promise((r) => setTimeout(r, 2_000));
    await service.tickOnce();
    expect(receiver.bodies).toHaveLength(1);
    expect(receiver.refused).toBe(1); // the first delivery was refused and retried

    const [f1, f2] = await fires();
    expect((await fires())).toHaveLength(2);
    expect(f2.firedAt.getTime()).toBeGreaterThan(f1.firedAt.getTime());
    for (const [f, runId] of [[f1, first], [f2, second]] as const) {
      expect(f.cacheNamespace).toBe(`${schedule}@${f.firedAt.toISOString()}`);
      expect(await runOf(runId)).toMatchObject({ priority: 'nightly', cache_namespace: f.cacheNamespace, simulated: true });
    }
    // Night 2 asked the model again (new namespace) but reused the gold SQL results.
    const run2 = await runOf(second);
    expect(run2.stage_jobs).toBe(80);
    expect(run2.reused_stages).toBe(40);

    const alert = receiver.bodies[0] as RegressionAlertPayload;
    expect(alert).toMatchObject({ type: 'regression', schedule, runId: second, previousRunId: first, regressed: true, simulated: true });
    expect(alert.variants).toHaveLength(1);
    const [v] = alert.variants;
    const stored = await e2e.db.selectFrom('item_results').select(['run_id', 'correct']).where('run_id', 'in', [first, second]).execute();
    const ex = (runId: string) => (100 * stored.filter((r) => r.run_id === runId && r.correct).length) / 40;
    expect(v).toMatchObject({ pairedItems: 40, exPrevious: ex(first), exCurrent: ex(second), regressed: true });
    expect(v.delta).toBeCloseTo(ex(second) - ex(first), 10);
    expect(v.high).toBeLessThan(0);
    expect(v.mcnemarP).toBeLessThan(0.05);
    const changed = Object.fromEntries(alert.changedStages.map((s) => [s.stage, s]));
    expect(changed.gold).toEqual({ stage: 'gold', compared: 40, changed: 0 });
    expect(changed['zero-shot.generate'].changed).toBeGreaterThan(0);
    expect(changed.evaluate.changed).toBeGreaterThan(0);
    expect(alert.text).toMatch(/zero-shot\.generate/);
    expect(alert.text).not.toMatch(/\bgold\b/);

    const alerts = await service.repository.listAlerts({ schedule });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ runId: second, webhookUrl: receiver.url, attempts: 2, lastError: null });
    expect(alerts[0].deliveredAt).toBeInstanceOf(Date);
    const trend = await service.repository.scheduleRuns(schedule);
    expect(trend.map((r) => [r.runId, r.regressed])).toEqual([[second, true], [first, false]]);
    expect(trend.map((r) => r.summaries.map((s) => s.ex))).toEqual([[ex(second)], [ex(first)]]);
  });
});
