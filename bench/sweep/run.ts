/**
 * bench/sweep: every registered pipeline x 2 variants (two simulated models) over minibench dev, with a
 * zero-latency simulator and the models' client-side rate limits lifted, through real worker processes. Reports
 * pipelines (variant x item) per second, stage jobs per second, and the orchestration cost per stage job (phases
 * timed by the workers) next to a no-op BullMQ job's cost and a Postgres round trip's, measured in the same run.
 *
 *   npm run bench -- sweep [--items N] [--workers N] [--serial-items N] [--cpu-prof DIR] [--trace FILE]
 *
 * --cpu-prof DIR: the throughput run's workers write V8 CPU profiles (.cpuprofile) into DIR when they stop.
 * --trace FILE: the throughput run's stage jobs as JSON lines (stage, worker pid, start and end in ms since the
 * epoch, phases), to see when which stages ran and where the cores sat idle.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { Client } from 'pg';
import { pipelineNames } from '@sqlsweep/contracts';
import {
  createTestDatabase, finishCli, type CliResult, type Proc, runCli, spawnCli, startSimulator, startWorkers, testQueuePrefix,
} from '@sqlsweep/testing';
import { Redis } from 'ioredis';
import { childrenCpuMs, machineBusyCpuMs, processCpuMs, serverCpuMs, type ServerPids } from './process-cpu';
import { writeModelCatalog } from '../model-catalog';
import { startPrivateServers } from '../private-servers';

const root = resolve(__dirname, '..', '..');

/**
 * Wall time per job of `jobs` no-op jobs through one BullMQ worker at `concurrency`, added in bulk beforehand, and the
 * CPU time per job they cost: this process (the worker) plus Redis.
 */
async function noopJobCost(redisUrl: string, servers: ServerPids, jobs: number, concurrency: number): Promise<{ ms: number; cpuMs: number }> {
  const prefix = testQueuePrefix();
  const queue = new Queue('noop', { connection: { url: redisUrl }, prefix });
  await queue.addBulk(Array.from({ length: jobs }, (_, i) => ({ name: 'noop', data: { i }, opts: { jobId: `n${i}`, removeOnComplete: true } })));
  let done = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const redisCpu = serverCpuMs(servers).redis;
  await new Promise<void>((resolveAll) => {
    const worker = new Worker('noop', async () => undefined, { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix, concurrency });
    worker.on('completed', () => {
      if (++done === jobs) void worker.close().then(() => resolveAll());
    });
  });
  const ms = performance.now() - started;
  const own = process.cpuUsage(cpu);
  const cpuMs = (own.user + own.system) / 1000 + serverCpuMs(servers).redis - redisCpu;
  await queue.obliterate({ force: true });
  await queue.close();
  return { ms: ms / jobs, cpuMs: cpuMs / jobs };
}

/**
 * Wall time per job of a chain of `jobs` no-op jobs, each adding the next before it completes: the least a job
 * that hands work on costs, as a stage job enqueues the stages it made ready.
 */
async function noopChainCost(redisUrl: string, jobs: number): Promise<number> {
  const prefix = testQueuePrefix();
  const queue = new Queue('noop-chain', { connection: { url: redisUrl }, prefix });
  const started = performance.now();
  await new Promise<void>((resolveAll) => {
    const worker = new Worker('noop-chain', async (job) => {
      const next = (job.data as { i: number }).i + 1;
      if (next < jobs) await queue.add('noop', { i: next }, { jobId: `c${next}`, removeOnComplete: true });
    }, { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix, concurrency: 1 });
    worker.on('completed', (job) => {
      if ((job.data as { i: number }).i === jobs - 1) void worker.close().then(() => resolveAll());
    });
    void queue.add('noop', { i: 0 }, { jobId: 'c0', removeOnComplete: true });
  });
  const ms = performance.now() - started;
  await queue.obliterate({ force: true });
  await queue.close();
  return ms / jobs;
}

/**
 * Wall time of one Postgres round trip, one at a time: a prepared `SELECT 1`, and a prepared insert of a new row,
 * committed durably (as every stored stage result is). The least a stage job can cost beyond BullMQ's own handling.
 */
async function postgresRoundTrips(databaseUrl: string, calls: number): Promise<{ selectMs: number; durableInsertMs: number }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A regular table: a temporary one writes no WAL, so its commits would not be durable.
    await client.query('CREATE TABLE IF NOT EXISTS round_trip (k integer PRIMARY KEY, v jsonb NOT NULL)');
    await client.query('TRUNCATE round_trip');
    const time = async (call: (i: number) => Promise<unknown>) => {
      const started = performance.now();
      for (let i = 0; i < calls; i++) await call(i);
      return (performance.now() - started) / calls;
    };
    const selectMs = await time(() => client.query({ name: 'select-1', text: 'SELECT 1' }));
    const durableInsertMs = await time((i) => client.query({ name: 'insert-1', text: 'INSERT INTO round_trip VALUES ($1, $2)', values: [i, '{"output": 1}'] }));
    return { selectMs, durableInsertMs };
  } finally {
    await client.end();
  }
}

/**
 * Wall time per job of a chain of `jobs` design-floor jobs: each inserts a row and commits it durably, runs a prepared
 * `SELECT 1`, then adds the next job before it completes, one at a time. With `workMs`, each job first waits the
 * next of those times (the serial run's work, replayed in the order its jobs ran), as a stage job waits for its
 * simulator call or sandbox before it stores its result; the waits are left out of the time. Back to back, the
 * servers never go idle between two jobs, which a stage job's store, coming after its work, never finds.
 */
async function floorJobCost(redisUrl: string, databaseUrl: string, jobs: number, workMs?: number[]): Promise<number> {
  const prefix = testQueuePrefix();
  const queue = new Queue('floor-chain', { connection: { url: redisUrl }, prefix });
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('CREATE TABLE IF NOT EXISTS floor_job (k integer PRIMARY KEY, v jsonb NOT NULL)');
  await client.query('TRUNCATE floor_job');
  let waited = 0;
  const started = performance.now();
  try {
    await new Promise<void>((resolveAll, reject) => {
      const worker = new Worker('floor-chain', async (job) => {
        const i = (job.data as { i: number }).i;
        if (workMs) {
          const before = performance.now();
          await sleep(workMs[i % workMs.length]);
          waited += performance.now() - before;
        }
        await client.query({ name: 'floor-insert', text: 'INSERT INTO floor_job VALUES ($1, $2)', values: [i, '{"output": 1}'] });
        await client.query({ name: 'floor-select', text: 'SELECT 1' });
        if (i + 1 < jobs) await queue.add('floor', { i: i + 1 }, { jobId: `f${i + 1}`, removeOnComplete: true });
      }, { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix, concurrency: 1 });
      worker.on('failed', (_job, e) => reject(e));
      worker.on('completed', (job) => {
        if ((job.data as { i: number }).i === jobs - 1) void worker.close().then(() => resolveAll());
      });
      void queue.add('floor', { i: 0 }, { jobId: 'f0', removeOnComplete: true });
    });
    return (performance.now() - started - waited) / jobs;
  } finally {
    await client.end();
    await queue.obliterate({ force: true });
    await queue.close();
  }
}

/**
 * Wall time of storing each of the stage results `stageKeys` again, one at a time, as a prepared insert committed
 * durably into a fresh table shaped as `stage_results` (its indexes and column compression included): the least
 * storing each stage's actual result costs, its output and trace as the stage made them. By stage kind, in the shape
 * `weightedPhaseMeans` takes. The design floor's insert (`postgresRoundTrips`) writes a 13-byte document instead.
 */
async function resultRowInserts(databaseUrl: string, stageKeys: string[]): Promise<Timed[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS round_trip_results (LIKE stage_results INCLUDING ALL)');
    await client.query('TRUNCATE round_trip_results');
    const columns = ['stage_key', 'stage', 'output', 'simulated', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'cost_usd', 'latency_ms', 'trace', 'run_id', 'variant_id', 'machine', 'reused'];
    // Outputs and traces as text, so that the insert parses them as the stage commit does.
    const { rows } = await client.query<Record<string, unknown>>(
      `SELECT ${columns.map((c) => (c === 'output' || c === 'trace' ? `${c}::text` : c)).join(', ')} FROM stage_results WHERE stage_key = ANY($1::text[])`, [stageKeys]);
    const insert = { name: 'insert-result-row', text: `INSERT INTO round_trip_results (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})` };
    const timed: Timed[] = [];
    for (const row of rows) {
      const started = performance.now();
      await client.query({ ...insert, values: columns.map((c) => row[c]) });
      timed.push({ stage: String(row.stage), ms: { insert: performance.now() - started } });
    }
    return timed;
  } finally {
    await client.end();
  }
}

/**
 * configs/models.yaml with the two simulated models' client-side limits lifted, written into `dir`: the catalog gives
 * them a tier of 3,000 RPM and 2 M input TPM each, which capped the LLM stages at 100 calls/s in all (about 200 stage
 * jobs/s) and left the cores idle behind the rate budget. This benchmark measures orchestration; bench/saturation
 * measures how a sweep fills a real limit.
 */
function unlimitedCatalog(dir: string): string {
  return writeModelCatalog(dir, (models) => {
    for (const model of ['sim-strong', 'sim-weak']) {
      models[model].limits = { rpm: 100_000_000, inputTpm: 100_000_000_000, outputTpm: 100_000_000_000, concurrency: 10_000 };
    }
  });
}

/** `sqlsweep <args>` as runCli runs it, noting when it printed that the run was created (its plan committed). */
async function runSweepCommand(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CliResult & { createdAt?: number }> {
  const cli = spawnCli(args, env);
  let createdAt: number | undefined;
  cli.child.stdout!.on('data', () => {
    if (createdAt === undefined && /run [0-9a-f-]{36} created/.test(cli.stdout)) createdAt = Date.now();
  });
  return { ...(await finishCli(cli, timeoutMs)), createdAt };
}

/**
 * Train items per warm-up sweep of the throughput workers, and the most such sweeps before the benchmark gives up on
 * a worker that never got an r3.rag (see main).
 */
const WARMUP_ITEMS = 8;
const MAX_WARMUP_ROUNDS = 5;

/** Of `times` measurements taken one after another, the one with the median `by`. */
async function medianOf<T>(times: number, measure: () => Promise<T>, by: (t: T) => number): Promise<T> {
  const taken: T[] = [];
  for (let i = 0; i < times; i++) taken.push(await measure());
  return taken.sort((a, b) => by(a) - by(b))[Math.floor(times / 2)];
}

interface StageDone {
  runId: string; stageKey: string; stage: string; batch: number; inserted?: boolean; durable?: boolean; ms: Record<string, number>; commitMs: Record<string, number>;
  /** The worker's pid, when the job started (ms since the epoch, to the microsecond) and when it logged the job's end (to the ms). */
  pid: number; startedAt: number; time: number;
}
/** A stage job's timings: by default its phases (`ms`). */
type Timed = Pick<StageDone, 'stage' | 'ms'>;

/** Milliseconds a stage job took, its phases summed (an `llm.batch` member logs none). */
const phasesMs = (j: Pick<StageDone, 'ms'>) => Object.values(j.ms ?? {}).reduce((t, x) => t + x, 0);

/** Mean milliseconds per phase over the stage jobs of one run, from the workers' `stage done` log lines. */
function phaseMeans<L extends Timed>(lines: L[], phasesOf: (l: L) => Record<string, number> = (l) => l.ms): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const l of lines) for (const [phase, ms] of Object.entries(phasesOf(l))) sums[phase] = (sums[phase] ?? 0) + ms;
  return Object.fromEntries(Object.entries(sums).map(([phase, ms]) => [phase, round(ms / lines.length)]));
}

/**
 * Mean milliseconds per phase of the serial run's stage kinds, weighted by how many jobs of each kind the full sweep
 * ran: a few serial items hold all the training-set stages, the full sweep mostly per-item ones.
 */
function weightedPhaseMeans<L extends Timed>(serial: L[], mix: Array<Pick<StageDone, 'stage'>>, phasesOf: (l: L) => Record<string, number> = (l) => l.ms): Record<string, number> {
  const meansOf = new Map<string, Record<string, number>>();
  const byStage = <T extends Pick<StageDone, 'stage'>>(lines: T[]) => lines.reduce((m, l) => m.set(l.stage, [...(m.get(l.stage) ?? []), l]), new Map<string, T[]>());
  for (const [stage, lines] of byStage(serial)) meansOf.set(stage, phaseMeans(lines, phasesOf));
  const sums: Record<string, number> = {};
  let weight = 0;
  for (const [stage, lines] of byStage(mix)) {
    const means = meansOf.get(stage);
    if (!means) continue; // too few serial items to hold this kind (see unweightedStages)
    for (const [phase, ms] of Object.entries(means)) sums[phase] = (sums[phase] ?? 0) + ms * lines.length;
    weight += lines.length;
  }
  return Object.fromEntries(Object.entries(sums).map(([phase, ms]) => [phase, round(ms / weight)]));
}

/** The stages whose jobs add the most overhead (load + commit) in all, with their mean phases and commit steps. */
function costliestStages(lines: StageDone[], top = 8) {
  const byStage = new Map<string, StageDone[]>();
  for (const l of lines) byStage.set(l.stage, [...(byStage.get(l.stage) ?? []), l]);
  const overhead = (ms: Record<string, number>) => (ms.load ?? 0) + (ms.commit ?? 0);
  return [...byStage].map(([stage, ls]) => ({
    stage, jobs: ls.length, totalOverheadMs: round(ls.reduce((t, l) => t + overhead(l.ms), 0), 1), mean: phaseMeans(ls), commitSteps: phaseMeans(ls, (l) => l.commitMs),
  }))
    .sort((a, b) => b.totalOverheadMs - a.totalOverheadMs).slice(0, top);
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/** A progress line on stderr (stdout carries the result), with the time of day. */
const say = (line: string) => process.stderr.write(`[sweep] ${new Date().toISOString().slice(11, 19)} ${line}\n`);

interface RoundTrips { postgresQueries: number; redisCommands: number; sandboxQueries: number; byKind: Record<string, number> }

/**
 * The Postgres queries, Redis commands and sandbox queries the workers have sent so far, summed (round-trip-counter.ts): each worker
 * is signalled and its written counts are awaited.
 */
async function roundTripsSoFar(dir: string, pids: number[]): Promise<RoundTrips> {
  const read = (pid: number) => {
    try {
      return JSON.parse(readFileSync(join(dir, `round-trips-${pid}.json`), 'utf8')) as RoundTrips & { snapshots: number };
    } catch {
      return undefined;
    }
  };
  const total: RoundTrips = { postgresQueries: 0, redisCommands: 0, sandboxQueries: 0, byKind: {} };
  for (const pid of pids) {
    const before = read(pid)?.snapshots ?? 0;
    process.kill(pid, 'SIGUSR2');
    const deadline = Date.now() + 10_000;
    let counts = read(pid);
    while (!counts || counts.snapshots <= before) {
      if (Date.now() > deadline) throw new Error(`worker ${pid} wrote no round-trip counts`);
      await sleep(20);
      counts = read(pid);
    }
    total.postgresQueries += counts.postgresQueries;
    total.redisCommands += counts.redisCommands;
    total.sandboxQueries += counts.sandboxQueries;
    for (const [kind, n] of Object.entries(counts.byKind)) total.byKind[kind] = (total.byKind[kind] ?? 0) + n;
  }
  return total;
}

/** One JSON line per stage job: its stage, worker, start and end (ms since the epoch) and phases. */
function writeTrace(file: string, jobs: StageDone[]): void {
  const lines = jobs.map((j) => {
    const ms = phasesMs(j);
    return JSON.stringify({ stage: j.stage, pid: j.pid, start: round(j.time - ms), end: j.time, ms: j.ms, commitMs: j.commitMs, batch: j.batch });
  });
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** The postmaster (parent of a backend of ours) and the Redis server (its INFO) that this benchmark uses. */
async function serverPids(databaseUrl: string, redisUrl: string): Promise<ServerPids> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const backend = Number((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  await client.end();
  const redis = new Redis(redisUrl);
  const info = await redis.info('server');
  redis.disconnect();
  const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  // A server in another pid namespace (a container) names pids this machine does not see: then every process named
  // postgres / redis-server counts, as before.
  const visible = (pid: number) => Number.isInteger(pid) && existsSync(`/proc/${pid}/stat`);
  return {
    postmaster: visible(backend) ? Number(readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1].split(' ')[1]) : undefined,
    redis: visible(redisPid) ? redisPid : undefined,
  };
}

/**
 * The serial run as it ran, one job at a time through one worker: its wall time per stage job from the first job's
 * start to the last one's end, less the jobs' own work (what the stages themselves took), and the mean wait between
 * one job's end and the next one's start (BullMQ completing the one and handing over the next, with whatever the
 * job left in flight: the ratios take that wait as `noopBullmqMsPerJob.serial`). Unweighted, over the serial run's mix.
 */
function serialAsRun(jobs: StageDone[]) {
  const ordered = [...jobs].sort((a, b) => a.startedAt - b.startedAt);
  const endOf = (j: StageDone) => j.startedAt + phasesMs(j);
  const span = endOf(ordered[ordered.length - 1]) - ordered[0].startedAt;
  const work = ordered.reduce((t, j) => t + (j.ms.work ?? 0), 0);
  const gaps = ordered.slice(1).map((j, i) => j.startedAt - endOf(ordered[i]));
  return {
    jobs: ordered.length,
    wallMsPerStageJobLessWork: round((span - work) / ordered.length),
    meanGapBetweenJobsMs: round(gaps.reduce((t, g) => t + g, 0) / gaps.length),
  };
}

/** Of the serial run's stage jobs that stored a result, how many committed durably and asynchronously, and their mean store step. */
function storeByDurability(lines: StageDone[]) {
  const of = (durable: boolean) => {
    const ls = lines.filter((l) => l.inserted && l.durable === durable);
    return { jobs: ls.length, meanStoreMs: ls.length ? round(ls.reduce((t, l) => t + l.commitMs.store, 0) / ls.length) : null };
  };
  return { durable: of(true), async: of(false) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { items: { type: 'string', default: '75' }, workers: { type: 'string', default: '2' }, 'serial-items': { type: 'string', default: '3' }, 'cpu-prof': { type: 'string' }, trace: { type: 'string' } } });
  const endpoints = await startPrivateServers({ name: 'sweep' });
  say(`servers up: ${endpoints.description}`);
  process.env.REDIS_URL = endpoints.redisUrl;
  process.env.DATABASE_URL = endpoints.postgresUrl;
  const db = await createTestDatabase(endpoints.postgresUrl);
  const servers = await serverPids(db.url, endpoints.redisUrl);
  const sim = await startSimulator({ config: 'bench/sweep/llm-sim-zero-latency.yaml' });
  const prefix = testQueuePrefix();
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlsweep-bench-'));
  const env = {
    DATABASE_URL: db.url, REDIS_URL: endpoints.redisUrl, SQLSWEEP_QUEUE_PREFIX: prefix, SQLSWEEP_LLM_SIM_URL: sim.url, SQLSWEEP_DATA_DIR: dataDir,
    SQLSWEEP_MODELS_FILE: unlimitedCatalog(dataDir), LOG_LEVEL: 'warn',
  };
  const done: StageDone[] = [];
  const collect = (line: string) => {
    if (!line.includes('"stage done"')) return;
    const l = JSON.parse(line) as StageDone;
    done.push({ runId: l.runId, stageKey: l.stageKey, stage: l.stage, batch: l.batch, inserted: l.inserted, durable: l.durable, ms: l.ms, commitMs: l.commitMs, pid: l.pid, startedAt: l.startedAt, time: l.time });
  };
  const sweepConfig = (name: string, items: number, { split = 'dev', offset = 0 }: { split?: 'dev' | 'train'; offset?: number } = {}) => {
    const file = join(env.SQLSWEEP_DATA_DIR, `${name}.yaml`);
    writeFileSync(file, [
      `name: ${name}`, 'dataset: minibench', `split: ${split}`, `items: { limit: ${items}, offset: ${offset} }`, 'models: [sim-strong, sim-weak]',
      'pipelines:', ...pipelineNames.map((p) => `  - pipeline: ${p}`),
    ].join('\n'));
    return file;
  };
  const sweep = async (config: string) => {
    say(`sweep ${basename(config, '.yaml')} ...`);
    const startedAt = Date.now();
    const started = performance.now();
    const serversBefore = serverCpuMs(servers);
    const workerPids = workers.map((w) => w.child.pid!);
    const workersBefore = processCpuMs({ pids: workerPids });
    const simulatorBefore = processCpuMs({ pids: [sim.child.pid!] });
    const sandboxesBefore = childrenCpuMs(workerPids);
    const machineBefore = machineBusyCpuMs();
    const r = await runSweepCommand(['run', config, '--workers', '0', '--no-progress', '--fresh-llm'], env, 1_800_000);
    const wallMs = performance.now() - started;
    const serversAfter = serverCpuMs(servers);
    const cpuMs = {
      postgres: serversAfter.postgres - serversBefore.postgres, redis: serversAfter.redis - serversBefore.redis,
      workers: processCpuMs({ pids: workerPids }) - workersBefore,
      simulator: processCpuMs({ pids: [sim.child.pid!] }) - simulatorBefore,
      sandboxes: childrenCpuMs(workerPids) - sandboxesBefore,
      machine: machineBusyCpuMs() - machineBefore,
    };
    if (r.code !== 0) throw new Error(`bench sweep failed:\n${r.stdout}\n${r.stderr}`);
    const runId = /run ([0-9a-f-]{36}) created/.exec(r.stdout)![1];
    const run = await db.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
    const jobs = done.filter((d) => d.runId === runId);
    if (jobs.length === 0) throw new Error(`bench sweep: no stage job of run ${runId} was logged`);
    // Where the wall time went: planning (the command's start to its report of the run's creation: start-up, config,
    // expanding, keying, looking up stored keys, estimating and writing the plan, committed), then to the first stage
    // job's start (enqueueing the ready stages), the stage jobs (the last one ends the run), and from the last one's
    // end to the command's exit (its last poll, the leaderboard, closing). Not at the run row's created_at: that is
    // when the plan's transaction began, before its stages were written.
    const firstStart = Math.min(...jobs.map((j) => j.time - phasesMs(j)));
    const lastEnd = Math.max(...jobs.map((j) => j.time));
    const planned = r.createdAt!;
    const wallParts = { plan: planned - startedAt, toFirstJob: firstStart - planned, jobs: lastEnd - firstStart, toExit: startedAt + wallMs - lastEnd };
    say(`sweep ${basename(config, '.yaml')}: ${run.stage_jobs} stage jobs in ${(wallMs / 1000).toFixed(1)} s`);
    return { run, wallMs, cpuMs, planMs: wallParts.plan, wallParts, jobs };
  };
  // A worker that dies unasked would leave the sweep waiting for ever: stop the benchmark instead.
  const stopping = new Set<Proc>();
  const watched = (procs: Proc[]) => {
    for (const w of procs) w.child.once('exit', (code, signal) => {
      if (stopping.has(w)) return;
      console.error(`bench sweep: a worker exited (code ${code}, signal ${signal}) before the benchmark ended`);
      void Promise.allSettled([stopWorkers(workers), sim.stop(), db.drop()]).finally(() => process.exit(1));
    });
    return procs;
  };
  const stopWorkers = (procs: Proc[]) => Promise.all(procs.map((w) => (stopping.add(w), w.stop())));
  // Cost first: the pipelines on a few items through one worker process serving every queue and running one job at a
  // time in all, so that each phase's wall time is its cost rather than its wait behind other jobs for the two cores.
  // (Run second, it would find the non-LLM stages of those items already stored by the full sweep.)
  const oneAtATime = { SQLSWEEP_ROLES: 'llm,sql,retrieval', SQLSWEEP_MAX_ACTIVE_JOBS: '1' };
  let workers = watched(startWorkers(1, { ...env, ...oneAtATime, LOG_LEVEL: 'info' }, collect));
  try {
    if ((await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env)).code !== 0) throw new Error('datasets add failed');
    await sweep(sweepConfig('bench-serial-warmup', 1));
    const serial = await sweep(sweepConfig('bench-serial', Number(values['serial-items'])));
    // Throughput: the default worker processes, warmed, then the whole sweep. The warm-up sweeps train items: the
    // serial run stored the retrieval stages of the first dev items, so a dev warm-up ran none of them and left these
    // workers to open the retrieval indexes inside the measured sweep (r3.rag's first search in a process reads 200 MB
    // of vectors and copies them into the MaxSim scorer's buckets: at 3532f19, with its chunking, 2-3 s of that
    // worker's event loop in this benchmark). Again on the next train items until every worker has run an r3.rag.
    await stopWorkers(workers);
    const countsDir = join(dataDir, 'round-trip-counts');
    mkdirSync(countsDir);
    const preloads = [require.resolve('@swc-node/register'), join(__dirname, 'round-trip-counter.ts'), ...(values['cpu-prof'] ? [join(__dirname, 'cpu-profile-preload.ts')] : [])];
    const instrumented = {
      SQLSWEEP_BENCH_COUNTS_DIR: countsDir, NODE_OPTIONS: preloads.map((p) => `--require ${p}`).join(' '),
      ...(values['cpu-prof'] ? { SQLSWEEP_BENCH_CPU_PROF_DIR: resolve(values['cpu-prof']) } : {}),
    };
    workers = watched(startWorkers(Number(values.workers), { ...env, ...instrumented, LOG_LEVEL: 'info' }, collect));
    const warm = new Set<number>();
    for (let round = 1; ; round++) {
      const warmup = await sweep(sweepConfig(`bench-warmup-${round}`, WARMUP_ITEMS, { split: 'train', offset: WARMUP_ITEMS * (round - 1) }));
      for (const j of warmup.jobs) if (j.stage === 'r3.rag') warm.add(j.pid);
      const cold = workers.filter((w) => !warm.has(w.child.pid!));
      if (cold.length === 0) break;
      if (round === MAX_WARMUP_ROUNDS) throw new Error(`bench sweep: workers ${cold.map((w) => w.child.pid).join(', ')} ran no r3.rag in ${round} warm-up sweeps`);
    }
    const workerPids = workers.map((w) => w.child.pid!);
    const tripsBefore = await roundTripsSoFar(countsDir, workerPids);
    const parallel = await sweep(sweepConfig('bench-sweep', Number(values.items)));
    const tripsAfter = await roundTripsSoFar(countsDir, workerPids);
    const variants = await db.db.selectFrom('variants').select('id').where('run_id', '=', parallel.run.id).execute();
    if (values.trace) writeTrace(values.trace, parallel.jobs);
    const stageJobs = parallel.run.stage_jobs;
    const planMsPerJob = parallel.planMs / stageJobs;
    // Latency: one job at a time, wall time of the phases that are not the stage's own work.
    const phases = weightedPhaseMeans(serial.jobs, parallel.jobs);
    const commitSteps = weightedPhaseMeans(serial.jobs, parallel.jobs, (l) => l.commitMs);
    const orchestrationMs = (phases.load ?? 0) + (phases.commit ?? 0) + planMsPerJob;
    const perJob = (ms: number) => round(ms / stageJobs);
    say('baselines: no-op BullMQ jobs, Postgres round trips, design-floor jobs (back to back and after the serial run\'s work), result-row inserts ...');
    // Baselines: the median of three measurements each, as one of them now and then runs several times slower here.
    const noopSerial = await medianOf(3, () => noopJobCost(endpoints.redisUrl, servers, 5_000, 1), (c) => c.ms);
    const noopConcurrent = await medianOf(3, () => noopJobCost(endpoints.redisUrl, servers, 5_000, 16), (c) => c.ms);
    const noopChainMs = await medianOf(3, () => noopChainCost(endpoints.redisUrl, 2_000), (ms) => ms);
    const postgres = await medianOf(3, () => postgresRoundTrips(db.url, 2_000), (rt) => rt.durableInsertMs);
    // The least a stage job can cost one at a time: a no-op job that adds the next, a durable insert, a round trip.
    const designFloorMs = noopChainMs + postgres.durableInsertMs + postgres.selectMs;
    // The design floor as one job, back to back and after the serial run's work replayed (see floorJobCost).
    const serialWork = [...serial.jobs].sort((a, b) => a.startedAt - b.startedAt).map((j) => j.ms.work ?? 0);
    const floorJobMs = await medianOf(3, () => floorJobCost(endpoints.redisUrl, db.url, 1_000), (ms) => ms);
    const floorJobAfterWorkMs = await medianOf(3, () => floorJobCost(endpoints.redisUrl, db.url, 1_000, serialWork), (ms) => ms);
    // The same with the insert of the stage's own result row instead of a 13-byte one (median of three passes, by kind).
    const storedKeys = serial.jobs.filter((j) => j.inserted).map((j) => j.stageKey);
    const resultRowInsertMs = await medianOf(3, async () => weightedPhaseMeans(await resultRowInserts(db.url, storedKeys), parallel.jobs).insert, (ms) => ms);
    const resultRowFloorMs = noopChainMs + resultRowInsertMs + postgres.selectMs;
    const meanBatch = parallel.jobs.reduce((t, j) => t + (j.batch ?? 1), 0) / parallel.jobs.length;
    const result = {
      benchmark: 'sweep',
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: loadavg().map((l) => round(l, 2)) },
      servers: endpoints.description,
      pipelines: pipelineNames, variantsPerPipeline: 2, items: parallel.run.item_count, workers: Number(values.workers),
      throughput: {
        wallSeconds: round(parallel.wallMs / 1000),
        planSeconds: round(parallel.planMs / 1000),
        wallPartsSeconds: Object.fromEntries(Object.entries(parallel.wallParts).map(([part, ms]) => [part, round(ms / 1000)])),
        pipelinesPerSecond: round((variants.length * parallel.run.item_count) / (parallel.wallMs / 1000)),
        stageJobs, stageJobsPerSecond: round(stageJobs / (parallel.wallMs / 1000)),
        wallMsPerStageJob: round(parallel.wallMs / stageJobs),
        meanCommitGroup: round(meanBatch, 2),
        cpuMsPerStageJob: { postgres: perJob(parallel.cpuMs.postgres), redis: perJob(parallel.cpuMs.redis), workers: perJob(parallel.cpuMs.workers), sandboxes: perJob(parallel.cpuMs.sandboxes), simulator: perJob(parallel.cpuMs.simulator), machine: perJob(parallel.cpuMs.machine) },
        roundTripsPerStageJob: {
          postgresQueries: perJob(tripsAfter.postgresQueries - tripsBefore.postgresQueries),
          redisCommands: perJob(tripsAfter.redisCommands - tripsBefore.redisCommands),
          sandboxQueries: perJob(tripsAfter.sandboxQueries - tripsBefore.sandboxQueries),
          byKind: Object.fromEntries(Object.entries(tripsAfter.byKind)
            .map(([kind, n]) => [kind, perJob(n - (tripsBefore.byKind[kind] ?? 0))] as const)
            .filter(([, n]) => n >= 0.01).sort((a, b) => b[1] - a[1])),
        },
      },
      cost: {
        items: serial.run.item_count, stageJobs: serial.jobs.length,
        meanMsPerStageJob: phases,
        meanCommitStepsMs: commitSteps,
        storeMsByDurability: storeByDurability(serial.jobs),
        serialRunAsRun: serialAsRun(serial.jobs),
        unweightedMeanMsPerStageJob: phaseMeans(serial.jobs),
        planMsPerStageJob: round(planMsPerJob),
        orchestrationMsPerStageJob: round(orchestrationMs),
        noopBullmqMsPerJob: { serial: round(noopSerial.ms), concurrency16: round(noopConcurrent.ms), chainAddingNext: round(noopChainMs) },
        noopBullmqCpuMsPerJob: { serial: round(noopSerial.cpuMs), concurrency16: round(noopConcurrent.cpuMs) },
        postgresRoundTripMs: { select: round(postgres.selectMs), durableInsert: round(postgres.durableInsertMs), durableInsertOfResultRow: round(resultRowInsertMs) },
        floorRatio: round((noopSerial.ms + postgres.durableInsertMs) / noopSerial.ms, 2),
        designFloorRatio: round(designFloorMs / noopSerial.ms, 2),
        overheadRatio: round((noopSerial.ms + orchestrationMs) / noopSerial.ms, 2),
        overheadRatioToChain: round((noopSerial.ms + orchestrationMs) / noopChainMs, 2),
        overheadToDesignFloor: round((noopSerial.ms + orchestrationMs) / designFloorMs, 2),
        overheadToResultRowFloor: round((noopSerial.ms + orchestrationMs) / resultRowFloorMs, 2),
        designFloorJobMs: { backToBack: round(floorJobMs), afterWork: round(floorJobAfterWorkMs) },
        overheadToDesignFloorJobAfterWork: round((noopSerial.ms + orchestrationMs) / floorJobAfterWorkMs, 2),
        costliestStages: costliestStages(serial.jobs),
        unweightedStages: [...new Set(parallel.jobs.map((j) => j.stage))].filter((stage) => !serial.jobs.some((j) => j.stage === stage)),
      },
      note: [
        'throughput: the whole sweep through the worker processes at their default concurrency (wall time of `sqlsweep run`, plan to leaderboard, workers warmed on sweeps of ' + WARMUP_ITEMS + ' train items until each has run an r3.rag, zero-latency simulator, the simulated models\' catalog limits lifted so that no rate budget binds, LLM stages asked afresh); wallPartsSeconds: the wall time split where the command reports the run created (its plan written and committed), the first stage job\'s start and the last one\'s end (planning includes the command\'s start-up); meanCommitGroup: how many stage jobs shared one commit (insert, dependents lookup, enqueue); cpuMsPerStageJob: CPU time of the Postgres and Redis servers the benchmark uses (not those of other tenants, where their pids are visible here), of the worker processes (work included), of their live sandbox children (SQLite runs; children that exited count in their worker) and of the LLM simulator during the sweep, per stage job; machine: all busy CPU time of the machine meanwhile (every process and the kernel, this benchmark and the sweep command included), so that machine less the named parts is what they leave out.',
        'cost: one worker process serving every queue (llm, sql, retrieval) and running one job at a time in all (SQLSWEEP_MAX_ACTIVE_JOBS=1), each stage job\'s phases timed by the worker, as means per stage kind weighted by the full sweep\'s mix of stage kinds: load (item, inputs), work (the stage itself: simulator call, sandbox SQL, encoding; not overhead), commit (store the output row, enqueue ready dependents, close finished items and runs); plus the sweep\'s planning time per stage job.',
        'overheadRatio (latency, one job at a time) = (serial no-op job + load + commit + plan share) / serial no-op job; overheadRatioToChain divides the same by a no-op job that adds the next job of a chain. floorRatio = (serial no-op job + one durable Postgres insert) / serial no-op job: what storing a result durably costs at the least, one job at a time (postgresRoundTripMs: a prepared SELECT 1 and a prepared insert committed with fsync, each on its own). designFloorRatio = (no-op job that adds the next job + durable insert + SELECT 1) / serial no-op job: the least a stage job can cost one at a time when it stores its result durably, then looks up and enqueues what it made ready, with no work of its own and no time in our code. overheadToDesignFloor = overheadRatio / designFloorRatio: how far a stage job\'s orchestration is above that floor. overheadToResultRowFloor: the same over a floor whose insert stores the stage\'s own result row (postgresRoundTripMs.durableInsertOfResultRow: each result the serial run stored, its output and trace as made, inserted again one at a time with a prepared statement and committed durably into a table shaped as stage_results, means by stage kind weighted as the phases are) instead of a 13-byte document: how far the orchestration is above storing what it must store.',
        'designFloorJobMs: the design floor as one job, timed whole: a BullMQ job that inserts a row committed durably, runs SELECT 1 and adds the next job, 1,000 in a chain one at a time, median of three; backToBack, each job as soon as the one before it completed (the floor\'s parts, which postgresRoundTripMs and noopBullmqMsPerJob.chainAddingNext time each in its own loop, in one job); afterWork, each job first waiting as long as the stage job in the same place of the serial run worked (its work times replayed in the order its jobs ran, left out of the time), as a stage job stores its result after its simulator call or sandbox: servers idle while a stage works and answer its next round trip slower (on this virtual machine, a SELECT 1 after a few idle milliseconds takes several times one sent back to back). overheadToDesignFloorJobAfterWork = (serial no-op job + load + commit + plan share) / designFloorJobMs.afterWork: the stage job against the floor met under the conditions the serial run met it.',
        'storeMsByDurability: the serial run\'s jobs by how their result was committed (durably: an LLM answer paid for here that the response cache could not store; asynchronously: anything else), unweighted. meanCommitStepsMs: the same weighting over the commit\'s steps (store the rows, look up the ready dependents, enqueue them, close finished items and runs); commit also holds the wait for a commit group already under way.',
        'serialRunAsRun: the serial run\'s own clock, unweighted: wallMsPerStageJobLessWork = (last job\'s end - first job\'s start - the jobs\' work) / jobs, everything a stage job cost one at a time beside its work, BullMQ\'s handling included; meanGapBetweenJobsMs: one job\'s end to the next one\'s start, BullMQ\'s handling as it ran there (the ratios take noopBullmqMsPerJob.serial for it), with what a job leaves in flight when it returns (its dependents\' adds, which go to Redis ahead of its completion).',
        'unweightedStages: kinds of the sweep\'s stage jobs that the serial run did not hold (too few --serial-items), left out of the weighted means.',
        'roundTripsPerStageJob: Postgres queries (each one round trip), Redis commands (several may share one write in a pipeline) and sandbox queries (each sent to a sandbox child and run there; memo hits not counted) the worker processes sent during the sweep, per stage job: counts, so unlike the times they do not move with the machine\'s load.',
        'noopBullmqCpuMsPerJob: CPU time of the no-op jobs\' worker (this process) and Redis, per job. cpuMsPerStageJob includes the LLM client\'s response cache (Postgres) and rate budget (Redis), which are the LLM stages\' work.',
      ].join(' '),
      measuredAt: new Date().toISOString(),
    };
    mkdirSync(join(root, 'bench', 'results'), { recursive: true });
    writeFileSync(join(root, 'bench', 'results', 'sweep.json'), `${JSON.stringify(result, null, 2)}\n`);
    say(`${result.throughput.stageJobsPerSecond} stage jobs/s; one at a time, ${result.cost.overheadToDesignFloor}x the floor's parts, ${result.cost.overheadToDesignFloorJobAfterWork}x the floor job after work: bench/results/sweep.json`);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    try {
      await stopWorkers(workers);
      await sim.stop();
      await db.drop();
      await endpoints.stop();
    } finally {
      // Its indexes (R3's corpus alone is about 200 MB) and the round-trip counts.
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

main().catch((e: Error) => {
  console.error(e.stack);
  process.exit(1);
});
