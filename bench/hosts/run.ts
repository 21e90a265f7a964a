/**
 * bench/hosts: sqlsweep workers on several "hosts" (Linux network namespaces joined to a bridge, each with its own
 * address, `--delay-ms` from the services each way), the benchmark's own Redis and Postgres and the LLM simulator in
 * the root namespace (infra/netns). Every worker runs a fixed LLM concurrency (`--concurrency`), so the hosts are
 * what scales. Phases, each on a fresh database copied from a template (minibench registered):
 *   scaling:   the 150-call sweep (bench/hosts/sweep.yaml, calls of median 800 ms, limits far above the load) on
 *              1, 2 and 4 hosts: LLM calls/s, and the ratios to one host;
 *   binding:   the same on 4 hosts against models limited to 30 RPM each (declared in the catalog as well): the share
 *              of calls answered 429 while the shared budget in Redis paces every host;
 *   partition: 3 hosts; once a quarter of the calls are answered and host 0 holds calls in flight, every packet to
 *              and from host 0 is dropped; the run must finish on the others (jobs taken over after the job lock),
 *              then the partition heals and the stale host's late writes must change nothing;
 *   failover:  3 hosts, Redis as a primary, a replica and three Sentinels; the primary SIGKILLed mid-sweep: the run
 *              must end on the promoted replica (items lost, rows duplicated, stall, manual steps).
 * Writes bench/results/hosts.json. Skips with one line where network namespaces cannot be made.
 *
 *   npm run bench -- hosts [--delay-ms 1] [--concurrency 1] [--phases scaling,binding,partition,failover] [--merge] [--lock-ms 10000]
 * --worker-log <file>: the failover phase's host worker log lines. --merge keeps the phases not run now from the previous bench/results/hosts.json (phasesMeasuredAt says when).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { findRedisBinaries, HostNetwork, netnsUnavailableReason, REDIS_CONF, startPrivateSentinelGroup, WorkerHosts } from '@sqlsweep/infra';
import { accountRun, callsClaimedBy, createTestDatabase, runCli, storedFingerprint } from '@sqlsweep/testing';
import { queryRows } from '@sqlsweep/db';
import { RunWatch } from '../chaos/run-watch';
import { ChaosServers } from '../chaos/servers';
import { ScenarioStack, type SimTotals } from '../chaos/stack';

const root = resolve(__dirname, '..', '..');
const SWEEP = 'bench/hosts/sweep.yaml';
const SIM_FREE = 'bench/hosts/llm-sim-800ms.yaml';
const SIM_BINDING = 'bench/hosts/llm-sim-800ms-30rpm.yaml';
const MODELS_BINDING = 'bench/hosts/models-30rpm.yaml';
const PHASES = ['scaling', 'binding', 'partition', 'failover'] as const;
type Phase = (typeof PHASES)[number];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => console.log(`[hosts] ${new Date().toISOString().slice(11, 19)} ${line}`);
const round = (x: number, digits = 2) => Number(x.toFixed(digits));

interface Ctx {
  net: HostNetwork;
  servers: ChaosServers;
  template: string;
  dataDir: string;
  concurrency: number;
  lockMs: number;
  /** Where the failover phase writes its host workers' log lines (--worker-log). */
  workerLog?: string;
}

/** Answered-call counts of the simulator, sampled every 250 ms while a run goes: calls/s over its steady middle. */
class SimSampler {
  readonly samples: { t: number; ok: number; requests: number; rateLimited: number }[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly stack: ScenarioStack) {
    this.loop = (async () => {
      while (this.running) {
        const s = await stack.simTotals().catch(() => undefined);
        if (s) this.samples.push({ t: Date.now(), ok: s.ok, requests: s.requests, rateLimited: s.rateLimited });
        await sleep(250);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Calls answered per second between the moments `from` and `to` shares of `total` calls had been answered. */
  rate(total: number, from = 0.1, to = 0.9): number {
    const first = this.samples.find((s) => s.ok >= total * from);
    const last = this.samples.find((s) => s.ok >= total * to);
    if (!first || !last || last.t === first.t) return NaN;
    return (last.ok - first.ok) / ((last.t - first.t) / 1000);
  }
}

/** The phase running now: stopped by the SIGINT/SIGTERM handler too. */
let current: { hosts?: WorkerHosts; stack: ScenarioStack } | undefined;

interface PhaseRun {
  stack: ScenarioStack;
  hosts: WorkerHosts;
  runId: string;
  watch: RunWatch;
  sampler: SimSampler;
  createdAt: number;
}

/** A fresh stack (database, simulator, orchestrator), gateways, and one worker on each of the first `hostCount` hosts; then the sweep through the CLI. */
async function startPhase(ctx: Ctx, name: string, simConfig: string, hostCount: number, env: NodeJS.ProcessEnv = {}): Promise<PhaseRun> {
  const stack = await ScenarioStack.start({
    postgresUrl: ctx.servers.postgresUrl, redisUrl: ctx.servers.redisUrl, template: ctx.template, dataDir: ctx.dataDir,
    simConfig, workers: 0, logLevel: 'warn', onLogLine: () => undefined,
  });
  let hosts: WorkerHosts | undefined;
  current = { stack };
  try {
    hosts = current.hosts = await WorkerHosts.start(ctx.net, { redisUrl: ctx.servers.redisUrl, databaseUrl: stack.databaseUrl, simUrl: stack.sim.url });
    const workerEnv = {
      ...stack.env, SQLSWEEP_LLM_CONCURRENCY: String(ctx.concurrency), SQLSWEEP_SQL_CONCURRENCY: String(ctx.concurrency),
      SQLSWEEP_JOB_LOCK_MS: String(ctx.lockMs), ...env,
    };
    for (let h = 0; h < hostCount; h++) hosts.startWorker(h, workerEnv);
    await Promise.all(hosts.workers.map((w) => w.started));
    say(`${name}: ${hostCount} host worker(s) started`);
    const cli = stack.startCli(SWEEP);
    const runId = await waitUntil('the CLI to create the run', Date.now() + 120_000, async () => {
      if (cli.exited) throw new Error(`sqlsweep run exited before creating the run:\n${cli.stdout}\n${cli.stderr}`);
      return (await stack.db.selectFrom('runs').select('id').executeTakeFirst())?.id;
    });
    return { stack, hosts, runId, watch: new RunWatch(stack.db, runId), sampler: new SimSampler(stack), createdAt: Date.now() };
  } catch (e) {
    await hosts?.stop(2_000);
    await stack.stop();
    current = undefined;
    throw e;
  }
}

async function endPhase(ctx: Ctx, run: PhaseRun): Promise<void> {
  await run.watch.stop();
  await run.sampler.stop();
  await run.hosts.stop(5_000);
  await run.stack.stop();
  current = undefined;
  await ctx.servers.flushRedis().catch(() => undefined);
}

async function waitUntil<T>(what: string, deadline: number, probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** The most frequent stage failure errors of a run, with their counts. */
async function stageFailureErrors(db: ScenarioStack['db'], runId: string): Promise<{ error: string; n: number }[]> {
  return queryRows<{ error: string; n: number }>(db)`
    SELECT left(error, 300) AS error, count(*)::int AS n FROM stage_failures WHERE run_id = ${runId} GROUP BY 1 ORDER BY 2 DESC LIMIT 5`;
}

function simFigures(sim: SimTotals) {
  return { requests: sim.requests, answered: sim.ok, rateLimited: sim.rateLimited, serverErrors: sim.serverErrors, abandoned: sim.abandoned };
}

/** The sweep on `hostCount` hosts with limits far above the load: calls/s over the middle 80 % of the calls. */
async function scalingRun(ctx: Ctx, hostCount: number) {
  const load = loadavg().map((l) => round(l));
  const run = await startPhase(ctx, `scaling ${hostCount}`, SIM_FREE, hostCount);
  try {
    const ended = await run.watch.untilTerminal(Date.now() + 600_000);
    await run.sampler.stop();
    const sim = await run.stack.simTotals();
    const account = await accountRun(run.stack.db, run.runId);
    const callsPerSecond = run.sampler.rate(sim.ok);
    const runSeconds = ((run.watch.endedAt ?? Date.now()) - run.createdAt) / 1000;
    say(`scaling ${hostCount}: ${round(callsPerSecond)} LLM calls/s (middle 80 %), run ${account.status} in ${round(runSeconds, 1)} s`);
    return {
      hosts: hostCount, llmConcurrencyPerHost: ctx.concurrency, inFlightCeiling: hostCount * ctx.concurrency,
      llmCallsPerSecond: round(callsPerSecond), llmCallsPerSecondWholeRun: round(sim.ok / runSeconds),
      runStatus: account.status, terminal: ended, runSeconds: round(runSeconds, 1), itemsPlanned: account.itemsPlanned,
      itemsWithResult: account.itemsWithResult, duplicatedRows: account.duplicatedRows, llmCalls: simFigures(sim),
      loadAverage: { atStart: load, atEnd: loadavg().map((l) => round(l)) },
    };
  } finally {
    await endPhase(ctx, run);
  }
}

/** 4 hosts against models limited to 30 RPM each, declared in the catalog too: 429s as a share of requests. */
async function bindingRun(ctx: Ctx) {
  const load = loadavg().map((l) => round(l));
  const models = join(root, MODELS_BINDING);
  // The CLI and the orchestrator read the catalog from the environment they inherit.
  process.env.SQLSWEEP_MODELS_FILE = models;
  const run = await startPhase(ctx, 'binding', SIM_BINDING, 4, { SQLSWEEP_MODELS_FILE: models });
  try {
    const ended = await run.watch.untilTerminal(Date.now() + 600_000);
    await run.sampler.stop();
    const sim = await run.stack.simTotals();
    const account = await accountRun(run.stack.db, run.runId);
    const runSeconds = ((run.watch.endedAt ?? Date.now()) - run.createdAt) / 1000;
    const share = sim.rateLimited / Math.max(1, sim.requests);
    say(`binding: ${sim.rateLimited} of ${sim.requests} requests answered 429 (${round(100 * share)} %), run ${account.status} in ${round(runSeconds, 1)} s`);
    // After the initial one-minute buckets (30 calls each model) are spent, the limit allows 1 call/s in all.
    return {
      hosts: 4, llmConcurrencyPerHost: ctx.concurrency, limitPerModelRpm: 30, models: 2, limitCallsPerSecond: 1,
      share429OfRequests: round(share, 4), llmCalls: simFigures(sim),
      llmCallsPerSecondAfterBucket: round(run.sampler.rate(sim.ok, 0.6, 0.95)),
      runStatus: account.status, terminal: ended, runSeconds: round(runSeconds, 1), itemsPlanned: account.itemsPlanned,
      itemsWithResult: account.itemsWithResult, itemsErrored: account.itemsErrored, duplicatedRows: account.duplicatedRows,
      loadAverage: { atStart: load, atEnd: loadavg().map((l) => round(l)) },
    };
  } finally {
    delete process.env.SQLSWEEP_MODELS_FILE;
    await endPhase(ctx, run);
  }
}

/** 3 hosts; host 0 cut off (every packet dropped) mid-sweep, healed once the run has ended without it. */
async function partitionRun(ctx: Ctx, deadlineMs: number) {
  const load = loadavg().map((l) => round(l));
  const run = await startPhase(ctx, 'partition', SIM_FREE, 3);
  const victim = run.hosts.workers[0];
  try {
    const atCut = await waitUntil('a quarter of the calls answered with host 0 holding calls', Date.now() + 300_000, async () => {
      if (run.watch.endedAt) throw new Error('the run ended before the partition');
      const t = await run.stack.simTotals();
      return t.ok >= 38 && (await callsClaimedBy(run.stack.db, victim.child.pid!)) > 0 ? t : undefined;
    });
    const victimClaims = await callsClaimedBy(run.stack.db, victim.child.pid!);
    ctx.net.partition(victim.host.index);
    const cutAt = Date.now();
    say(`partition: host 0 (${victim.host.address}) cut off at ${atCut.ok} calls answered, ${victimClaims} of its calls in flight`);
    const ended = await run.watch.untilTerminal(cutAt + deadlineMs);
    const stall = run.watch.longestStallSeconds(cutAt, cutAt + deadlineMs);
    say(`partition: ${ended ? `run ${run.watch.status} ${round((run.watch.endedAt! - cutAt) / 1000, 1)} s after the cut` : `run still ${run.watch.status} ${deadlineMs / 1000} s after the cut: a manual step is needed`}`);
    await sleep(1_000);
    const before = await storedFingerprint(run.stack.db, run.runId);
    const linesAtHeal = victim.lines.length;
    const healedAt = Date.now();
    ctx.net.heal(victim.host.index);
    // The stale host's TCP connections come back on their next retransmission; its jobs then end against lost locks.
    const woke = await waitUntil('the healed host to log again', Date.now() + 60_000, async () => (victim.lines.length > linesAtHeal ? Date.now() : undefined)).catch(() => undefined);
    await sleep(10_000);
    await victim.stop('SIGTERM', 10_000);
    const after = await storedFingerprint(run.stack.db, run.runId);
    const lateLines = victim.lines.slice(linesAtHeal);
    const lateStageDone = lateLines.filter((l) => l.includes('"stage done"'));
    const sim = await run.stack.simTotals();
    const account = await accountRun(run.stack.db, run.runId);
    const itemsLost = ended ? account.itemsPlanned - account.itemsWithResult : null;
    say(`partition: items lost ${itemsLost}, rows duplicated ${account.duplicatedRows}, stall ${stall} s, late writes changed ${before.hash === after.hash ? 'nothing' : 'STORED RESULTS'}`);
    return {
      hosts: 3, partitionedHost: victim.host.address, llmConcurrencyPerHost: ctx.concurrency, jobLockMs: ctx.lockMs,
      cutAtLlmCallsAnswered: atCut.ok, victimCallsInFlightAtCut: victimClaims,
      itemsPlanned: account.itemsPlanned, itemsLost, duplicatedRows: account.duplicatedRows, itemsErrored: account.itemsErrored,
      stageFailures: account.stageFailures, stallSeconds: stall, manualSteps: ended ? 0 : 1,
      runStatus: account.status, secondsFromCutToRunEnd: ended ? round((run.watch.endedAt! - cutAt) / 1000, 1) : null,
      extraLlmCalls: sim.ok - account.storedLlmAnswers, llmCalls: simFigures(sim),
      heal: {
        staleHostLoggedAgainAfterSeconds: woke ? round((woke - healedAt) / 1000, 1) : null,
        staleHostLinesAfterHeal: lateLines.length,
        staleHostStageJobsFinishedLate: lateStageDone.length,
        staleHostLateInserts: lateStageDone.filter((l) => l.includes('"inserted":true')).length,
        storedBeforeHeal: before, storedAfterHeal: after,
        lateWritesChangedNothing: before.hash === after.hash,
      },
      loadAverage: { atStart: load, atEnd: loadavg().map((l) => round(l)) },
    };
  } finally {
    await endPhase(ctx, run);
  }
}

/**
 * Redis failover (Sentinel): a primary, one replica and three Sentinels (private servers); the orchestrator, the CLI
 * and 3 host workers all reach Redis by REDIS_URL=redis+sentinel://... (the hosts through loopback relays, since the
 * Sentinels name loopback addresses). Once a quarter of the calls are answered the primary is SIGKILLed; the run must
 * end on the promoted replica with every item once, nothing done by hand.
 */
async function redisFailoverRun(ctx: Ctx, deadlineMs: number) {
  const binaries = findRedisBinaries();
  if (typeof binaries === 'string') return { measured: false, reason: binaries };
  const load = loadavg().map((l) => round(l));
  const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-hosts-sentinel-'));
  const group = await startPrivateSentinelGroup({ dir, binary: binaries.server, confPath: REDIS_CONF, replicas: 1, sentinels: 3, downAfterMs: 3_000 });
  try {
    const stack = await ScenarioStack.start({
      postgresUrl: ctx.servers.postgresUrl, redisUrl: group.url, template: ctx.template, dataDir: ctx.dataDir,
      simConfig: SIM_FREE, workers: 0, logLevel: 'warn', onLogLine: () => undefined,
    });
    current = { stack };
    let hosts: WorkerHosts | undefined;
    try {
      hosts = current.hosts = await WorkerHosts.start(ctx.net, { databaseUrl: stack.databaseUrl, simUrl: stack.sim.url });
      await hosts.relayLoopbackPorts([...group.servers, ...group.sentinels].map((s) => s.port));
      const env = { ...stack.env, REDIS_URL: group.url, SQLSWEEP_LLM_CONCURRENCY: String(ctx.concurrency), SQLSWEEP_JOB_LOCK_MS: String(ctx.lockMs), SQLSWEEP_RECONCILE_MS: '2000' };
      for (let h = 0; h < 3; h++) hosts.startWorker(h, env);
      await Promise.all(hosts.workers.map((w) => w.started));
      say('failover: 3 host worker(s) started, Redis behind Sentinel');
      const cli = stack.startCli(SWEEP);
      const runId = await waitUntil('the CLI to create the run', Date.now() + 120_000, async () => {
        if (cli.exited) throw new Error(`sqlsweep run exited before creating the run:\n${cli.stdout}\n${cli.stderr}`);
        return (await stack.db.selectFrom('runs').select('id').executeTakeFirst())?.id;
      });
      const watch = new RunWatch(stack.db, runId);
      try {
        const atKill = await waitUntil('a quarter of the calls answered', Date.now() + 300_000, async () => {
          if (watch.endedAt) throw new Error('the run ended before the failover');
          const t = await stack.simTotals();
          return t.ok >= 38 ? t : undefined;
        });
        const old = await group.primary();
        const killedAt = Date.now();
        group.kill(old);
        const promoted = await group.waitForFailover(old, 60_000);
        const promotedAt = Date.now();
        say(`failover: primary ${old.name} killed at ${atKill.ok} calls answered, ${promoted.name} promoted after ${round((promotedAt - killedAt) / 1000, 1)} s`);
        const ended = await watch.untilTerminal(killedAt + deadlineMs);
        const stall = watch.longestStallSeconds(killedAt, killedAt + deadlineMs);
        await watch.stop();
        if (ended) await Promise.race([cli.finished, sleep(20_000)]);
        const sim = await stack.simTotals();
        const account = await accountRun(stack.db, runId);
        const itemsLost = ended ? account.itemsPlanned - account.itemsWithResult : null;
        const reconcilerLines = hosts.workers.flatMap((w) => w.lines).filter((l) => l.includes('reconciler'));
        const failureErrors = await stageFailureErrors(stack.db, runId);
        if (ctx.workerLog) writeFileSync(ctx.workerLog, hosts.workers.map((w) => w.lines.map((l) => `${w.host.address} ${l}`).join('\n')).join('\n'));
        say(`failover: run ${account.status}, items lost ${itemsLost}, rows duplicated ${account.duplicatedRows}, stall ${stall} s`);
        return {
          measured: true, hosts: 3, redis: 'a primary, 1 replica, 3 Sentinels (down-after 3 s); REDIS_URL=redis+sentinel://... for the orchestrator, the CLI and the host workers',
          killedAtLlmCallsAnswered: atKill.ok, promotedAfterSeconds: round((promotedAt - killedAt) / 1000, 1),
          itemsPlanned: account.itemsPlanned, itemsLost, duplicatedRows: account.duplicatedRows, itemsErrored: account.itemsErrored,
          stageFailures: account.stageFailures, stageFailureErrors: failureErrors, stallSeconds: stall, manualSteps: ended ? 0 : 1, runStatus: account.status,
          secondsFromKillToRunEnd: ended ? round((watch.endedAt! - killedAt) / 1000, 1) : null,
          cliExitCode: cli.child.exitCode, workersAlive: hosts.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null).length,
          reconcilerLogLines: reconcilerLines.length, extraLlmCalls: sim.ok - account.storedLlmAnswers, llmCalls: simFigures(sim),
          loadAverage: { atStart: load, atEnd: loadavg().map((l) => round(l)) },
        };
      } finally {
        await watch.stop();
      }
    } finally {
      await hosts?.stop(5_000);
      await stack.stop();
      current = undefined;
    }
  } finally {
    await group.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'delay-ms': { type: 'string', default: '1' }, concurrency: { type: 'string', default: '1' }, phases: { type: 'string', default: PHASES.join(',') },
      'lock-ms': { type: 'string', default: '10000' }, 'deadline-seconds': { type: 'string', default: '180' }, merge: { type: 'boolean', default: false },
      'worker-log': { type: 'string' },
    },
  });
  const phases = values.phases.split(',').map((p) => p.trim()) as Phase[];
  const unknown = phases.filter((p) => !PHASES.includes(p));
  if (unknown.length) throw new Error(`--phases: no phase ${unknown.join(', ')} (phases: ${PHASES.join(', ')})`);
  const unavailable = netnsUnavailableReason();
  if (unavailable) {
    console.log(`bench hosts skipped: ${unavailable}`);
    return;
  }
  const started = Date.now();
  const net = HostNetwork.create({ hosts: 4, delayMs: Number(values['delay-ms']) });
  say(`4 hosts on ${net.subnet}.0/24 (bridge ${net.bridge} ${net.bridgeAddress}), ${net.delayMs} ms each way by ${net.delayMethod}${net.netemUnavailable ? ` (${net.netemUnavailable})` : ''}`);
  let servers: ChaosServers | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlsweep-hosts-data-'));
  const stopAll = async () => {
    await current?.hosts?.stop(1_000).catch(() => undefined);
    await current?.stack.stop().catch(() => undefined);
    await servers?.stop().catch(() => undefined);
    net.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopAll().finally(() => process.exit(130)));
  try {
    servers = await ChaosServers.start(say);
    say(`own Redis on port ${servers.redisPort}, own Postgres on port ${servers.postgresPort} (loopback; the hosts reach them through gateways on ${net.bridgeAddress})`);
    const template = await createTestDatabase(servers.postgresUrl);
    await template.db.destroy();
    const added = await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], {
      DATABASE_URL: template.url, REDIS_URL: servers.redisUrl, SQLSWEEP_QUEUE_PREFIX: 'hosts_template', SQLSWEEP_DATA_DIR: dataDir,
    });
    if (added.code !== 0) throw new Error(`datasets add failed:\n${added.stdout}\n${added.stderr}`);
    const ctx: Ctx = { net, servers, template: template.name, dataDir, concurrency: Number(values.concurrency), lockMs: Number(values['lock-ms']), workerLog: values['worker-log'] };

    const result: Record<string, unknown> = {
      benchmark: 'hosts',
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverageAtStart: loadavg().map((l) => round(l)) },
      network: {
        hosts: 'Linux network namespaces, one veth pair each to a bridge in the root namespace', subnet: `${net.subnet}.0/24`, bridgeAddress: net.bridgeAddress,
        delayMsEachWay: net.delayMs, delayMethod: net.delayMethod, ...(net.netemUnavailable ? { netemUnavailable: net.netemUnavailable } : {}),
        partition: 'pfifo limit 0 as the root qdisc of both veth ends: every packet to and from the host dropped, its TCP connections hang',
        services: 'Redis (AOF), Postgres and the LLM simulator on loopback of the root namespace, reached by the hosts through TCP gateways listening on the bridge address',
      },
      sweep: { config: SWEEP, llmCalls: 150, simulatedLatency: 'median 800 ms, p95 1.1 s' },
      settings: { llmConcurrencyPerHost: ctx.concurrency, jobLockMs: ctx.lockMs, workersPerHost: 1 },
      phasesMeasuredAt: Object.fromEntries(phases.map((p) => [p, new Date().toISOString()])),
    };
    const goals: string[] = [];
    if (phases.includes('scaling')) {
      const runs = [];
      for (const n of [1, 2, 4]) runs.push(await scalingRun(ctx, n));
      const one = runs[0].llmCallsPerSecond;
      const speedup = Object.fromEntries(runs.map((r) => [`${r.hosts}`, round(r.llmCallsPerSecond / one)]));
      result.scaling = { runs, speedupVsOneHost: speedup, goal: '>= 1.8 at 2 hosts, >= 3.2 at 4 hosts (limits far above the load)' };
      if (!(speedup['2'] >= 1.8)) goals.push(`scaling: speed-up at 2 hosts ${speedup['2']} < 1.8`);
      if (!(speedup['4'] >= 3.2)) goals.push(`scaling: speed-up at 4 hosts ${speedup['4']} < 3.2`);
    }
    if (phases.includes('binding')) {
      const b = await bindingRun(ctx);
      result.binding = { ...b, goal: 'share429OfRequests <= 0.01' };
      if (!(b.share429OfRequests <= 0.01)) goals.push(`binding: 429 share ${b.share429OfRequests} > 0.01`);
    }
    if (phases.includes('partition')) {
      const p = await partitionRun(ctx, Number(values['deadline-seconds']) * 1000);
      result.partition = { ...p, goal: 'itemsLost 0, duplicatedRows 0, manualSteps 0, itemsErrored 0, late writes change nothing' };
      if (p.itemsLost !== 0) goals.push(`partition: ${p.itemsLost} items lost`);
      if (p.duplicatedRows !== 0) goals.push(`partition: ${p.duplicatedRows} rows duplicated`);
      if (p.manualSteps !== 0) goals.push('partition: a manual step was needed');
      if (p.itemsErrored !== 0) goals.push(`partition: ${p.itemsErrored} items closed as errored`);
      if (!p.heal.lateWritesChangedNothing) goals.push('partition: the healed host\'s late writes changed stored results');
    }
    if (phases.includes('failover')) {
      const f = await redisFailoverRun(ctx, Number(values['deadline-seconds']) * 1000);
      result.redisFailover = { ...f, goal: 'itemsLost 0, duplicatedRows 0, manualSteps 0, itemsErrored 0' };
      if (f.measured && 'itemsLost' in f) {
        if (f.itemsLost !== 0) goals.push(`failover: ${f.itemsLost} items lost`);
        if (f.duplicatedRows !== 0) goals.push(`failover: ${f.duplicatedRows} rows duplicated`);
        if (f.manualSteps !== 0) goals.push('failover: a manual step was needed');
        // A transient fault must cost time, not results: an item closed as errored is a result changed by it.
        if (f.itemsErrored !== 0) goals.push(`failover: ${f.itemsErrored} items closed as errored (${f.stageFailures} stage failures)`);
      }
    }
    const file = join(root, 'bench', 'results', 'hosts.json');
    const keyOf: Record<Phase, string> = { scaling: 'scaling', binding: 'binding', partition: 'partition', failover: 'redisFailover' };
    const skipped = PHASES.filter((p) => !phases.includes(p));
    if (values.merge && skipped.length && existsSync(file)) {
      // Phases not run now keep their figures (and misses) from the previous file, which says when they were measured.
      const previous = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { misses?: string[]; measuredAt?: string; phasesMeasuredAt?: Record<string, string> };
      for (const phase of skipped) {
        if (previous[keyOf[phase]] === undefined) continue;
        result[keyOf[phase]] = previous[keyOf[phase]];
        (result.phasesMeasuredAt as Record<string, string>)[phase] = previous.phasesMeasuredAt?.[phase] ?? previous.measuredAt ?? 'unknown';
        goals.push(...(previous.misses ?? []).filter((m) => m.startsWith(`${phase}:`)));
      }
    }
    result.meetsGoals = goals.length === 0;
    result.misses = goals;
    result.wallSeconds = round((Date.now() - started) / 1000, 1);
    result.note = [
      'llmCallsPerSecond: calls answered by the simulator per second between the moments 10 % and 90 % of the sweep\'s calls had been answered (start-up and the tail excluded); each host runs one worker with SQLSWEEP_LLM_CONCURRENCY fixed, so the in-flight ceiling grows with the hosts.',
      'binding: the simulator\'s token buckets start full (one minute of calls), so the limit binds once they are spent; share429OfRequests counts every request of the run.',
      'partition: itemsLost = (variant, item) pairs without an item result once the run ended (null if it never did); duplicatedRows = rows beyond one per key in item_results, stage_results, stage_failures and run_summaries; stallSeconds = the longest time without a stage result, failure or item result stored from the cut to the run\'s end; manualSteps = 1 if the run was not done within the deadline (the benchmark never resumes a run). The fingerprints hash every stored row (timestamps included) before the heal and after the stale host came back and was stopped.',
      'machine.loadAverage and each phase\'s loadAverage: the 2 cores are shared with other work, which slows the hosts\' workers alike.',
    ].join(' ');
    result.measuredAt = new Date().toISOString();
    mkdirSync(join(root, 'bench', 'results'), { recursive: true });
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await stopAll();
  }
}

main().catch((e: Error) => {
  console.error(e.stack);
  process.exit(1);
});
