/**
 * bench/scale: plans sweeps of about 100,000 and 1,000,000 stage jobs, each as a dry run and for real (a run stored),
 * every plan in a child process of its own (plan-child.ts) whose peak RSS is the planner's: wall time, peak RSS, RSS
 * over the plan, run_stages rows written per second. The dataset is the synthetic scale dataset
 * (data/minibench/scale, registered with `sqlsweep datasets add`) when its generator is there, else minibench; the
 * grid (RB-SQL x temperatures x 2 simulated models) is sized from the stage keys of one item per variant. Then the
 * API latencies on the largest stored run (bench/scale/api-latency.ts).
 *
 *   npm run bench -- scale [--sizes 100000,1000000] [--dataset scale|minibench] [--dev N] [--train N] [--skip-api]
 *
 * --skip-api measures the plans only and keeps the API latencies of the results file already there, if any, saying
 * when and on how many run_stages rows they were measured (`apiLatenciesFrom`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { queryRows } from '@sqlsweep/db';
import { keyItemStages, pipelines } from '@sqlsweep/pipelines';
import { createTestDatabase, runCli, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { startPrivateServers } from '../private-servers';
import { processCpuMs } from '../sweep/process-cpu';
import { measureApiLatencies } from './api-latency';
import type { PlanChildResult } from './plan-child';

const root = resolve(__dirname, '..', '..');
const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/** The sweep config: RB-SQL with `temperatures` sampling temperatures, on two simulated models, over the first `items` items. */
function sweepYaml(name: string, dataset: string, temperatures: number, items?: number): string {
  const ts = Array.from({ length: temperatures }, (_, i) => round(0.1 + i * (1.8 / Math.max(1, temperatures)), 4));
  return [
    `name: ${name}`, `dataset: ${dataset}`, 'split: dev', ...(items === undefined ? [] : [`items: { limit: ${items} }`]), 'models: [sim-strong, sim-weak]', 'pipelines:',
    `  - { pipeline: rb-sql, grid: { temperature: [${ts.join(', ')}] } }`, '',
  ].join('\n');
}

/**
 * Distinct stage keys of one evaluated item over every variant of the config: variants share the stages they agree
 * on (retrieval, before the temperature matters), so the plan's stage jobs are about this times the item count.
 */
function distinctStagesPerItem(yaml: string): number {
  const config = parseSweepConfig(yaml, 'bench-scale.yaml');
  const keys = new Set<string>();
  for (const v of expandVariants(config)) {
    for (const s of keyItemStages(pipelines[v.pipeline], v, { datasetVersion: 'sizing', itemId: 'one' })) keys.add(s.key);
  }
  return keys.size;
}

/**
 * The fewest temperatures whose sweep over the dataset's `items` items has at least `target` stage jobs, and the
 * fewest items that still reach it with them: the sizes compared differ in items (and variants only when needed).
 */
function sweepSize(target: number, dataset: string, items: number): { temperatures: number; items: number } {
  for (let t = 1; t <= 5_000; t++) {
    const perItem = distinctStagesPerItem(sweepYaml('sizing', dataset, t));
    if (perItem * items >= target) return { temperatures: t, items: Math.ceil(target / perItem) };
  }
  throw new Error(`no grid of up to 5,000 temperatures reaches ${target} stage jobs over ${items} items`);
}

/**
 * Plans in a child process; while it runs, the CPU time of the Postgres backends serving the bench's database (the
 * child's, as nothing else uses it then) is sampled from /proc every 250 ms, so Postgres's share of the plan is known
 * on a machine whose other processes compete for the cores.
 */
async function planInChild(config: string, env: NodeJS.ProcessEnv, dryRun: boolean, db: TestDatabase): Promise<PlanChildResult & { postgresCpuMs: number; loadAverage: number }> {
  const own = (await queryRows<{ pid: number }>(db.db)`SELECT pg_backend_pid() AS pid`).map((r) => r.pid);
  const backends = new Map<number, number>();
  const sample = async () => {
    const rows = await queryRows<{ pid: number }>(db.db)`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`;
    for (const { pid } of rows) if (!own.includes(pid)) backends.set(pid, Math.max(backends.get(pid) ?? 0, processCpuMs({ pids: [pid] })));
  };
  const sampler = setInterval(() => void sample().catch(() => undefined), 250);
  const loadAverage = round(loadavg()[0], 2);
  try {
    const result = await planProcess(config, env, dryRun);
    return { ...result, loadAverage, postgresCpuMs: Math.round([...backends.values()].reduce((t, ms) => t + ms, 0)) };
  } finally {
    clearInterval(sampler);
  }
}

function planProcess(config: string, env: NodeJS.ProcessEnv, dryRun: boolean): Promise<PlanChildResult> {
  return new Promise((resolvePlan, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'plan-child.ts'), config, ...(dryRun ? ['--dry-run'] : [])], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.once('exit', (code) => {
      const line = stdout.trim().split('\n').at(-1);
      if (code !== 0 || !line) reject(new Error(`plan-child ${config}${dryRun ? ' --dry-run' : ''} exited ${code}\n${stdout}\n${stderr}`));
      else resolvePlan(JSON.parse(line) as PlanChildResult);
    });
  });
}

/** Registers the scale dataset (generated into a temporary folder) or minibench; returns its name and dev item count. */
async function registerDataset(which: string, env: NodeJS.ProcessEnv, db: TestDatabase, sizes: { dev: string; train: string }): Promise<{ name: string; items: number; generateMs?: number }> {
  let name = 'minibench';
  let path = 'data/minibench/dist';
  let format = 'minibench';
  let generateMs: number | undefined;
  if (which === 'scale') {
    const out = mkdtempSync(join(tmpdir(), 'sqlsweep-scale-dataset-'));
    const started = performance.now();
    const made = await runNode(['data/minibench/scale/main.ts', '--out', out, '--dev', sizes.dev, '--train', sizes.train, '--force'], env);
    if (made.code !== 0) throw new Error(`scale dataset generation failed:\n${made.output}`);
    generateMs = performance.now() - started;
    [name, path, format] = ['scale', out, 'spider'];
  }
  // The dataset store keeps the files: the generated folder goes once they are added (or could not be).
  const added = await runCli(['datasets', 'add', name, '--format', format, '--path', path], env, 1_800_000)
    .finally(() => { if (which === 'scale') rmSync(path, { recursive: true, force: true }); });
  if (added.code !== 0) throw new Error(`datasets add ${name} failed:\n${added.stdout}\n${added.stderr}`);
  const [{ n }] = await queryRows<{ n: number }>(db.db)`
    SELECT count(*)::int AS n FROM dataset_items i JOIN dataset_versions v ON v.id = i.version_id
    JOIN datasets d ON d.id = v.dataset_id WHERE d.name = ${name} AND i.split = 'dev' AND i.gold_flag IS NULL`;
  return { name, items: n, generateMs };
}

function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', ...args], { cwd: root, env });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    child.once('exit', (code) => done({ code, output }));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    sizes: { type: 'string', default: '100000,1000000' },
    dataset: { type: 'string', default: existsSync(join(root, 'data/minibench/scale/main.ts')) ? 'scale' : 'minibench' },
    dev: { type: 'string', default: '20000' }, train: { type: 'string', default: '5000' },
    'skip-api': { type: 'boolean', default: false },
  } });
  const targets = values.sizes.split(',').map(Number);
  // Failures before the try below end the servers too, as the process exits (bench/private-servers.ts).
  const servers = await startPrivateServers({ name: 'scale' });
  const db = await createTestDatabase(servers.postgresUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlsweep-bench-scale-'));
  const env = { ...process.env, DATABASE_URL: db.url, REDIS_URL: servers.redisUrl, SQLSWEEP_QUEUE_PREFIX: testQueuePrefix(), SQLSWEEP_DATA_DIR: dataDir, LOG_LEVEL: 'warn',
    // Planning only checks that the simulated models' provider is configured; no call is made.
    SQLSWEEP_LLM_SIM_URL: 'http://127.0.0.1:9' };
  try {
    const dataset = await registerDataset(values.dataset, env, db, { dev: values.dev, train: values.train });
    const plans = [];
    let largestRun: string | undefined;
    for (const target of targets) {
      const { temperatures, items } = sweepSize(target, dataset.name, dataset.items);
      const config = join(dataDir, `scale-${target}.yaml`);
      writeFileSync(config, sweepYaml(`bench-scale-${target}`, dataset.name, temperatures, items));
      const dry = await planInChild(config, env, true, db);
      const real = await planInChild(config, env, false, db);
      const [{ rows }] = await queryRows<{ rows: number }>(db.db)`SELECT count(*)::int AS rows FROM run_stages WHERE run_id = ${real.runId}`;
      const figures = (p: PlanChildResult & { postgresCpuMs: number; loadAverage: number }, written: number) => ({
        loadAverageAtStart: p.loadAverage, wallSeconds: round(p.wallMs / 1000), peakRssMiB: p.peakRssMiB, stageJobs: p.stageJobs, reused: p.reused,
        plannerCpuSeconds: round(p.cpuMs / 1000), postgresBackendCpuSeconds: round(p.postgresCpuMs / 1000),
        runStagesRows: written, rowsPerSecond: written ? Math.round(written / (p.wallMs / 1000)) : 0,
        stageJobsPerSecond: Math.round((p.stageJobs + p.reused) / (p.wallMs / 1000)),
        rssMiBOverPlan: { min: Math.min(...p.rssSamplesMiB), median: p.rssSamplesMiB.sort((a, b) => a - b)[Math.floor(p.rssSamplesMiB.length / 2)] ?? 0, max: Math.max(...p.rssSamplesMiB) },
      });
      plans.push({ target, variants: real.variants, items: real.items, temperatures, dryRun: figures(dry, 0), real: figures(real, rows) });
      console.log(JSON.stringify(plans.at(-1)));
      largestRun = real.runId;
    }
    const resultsFile = join(root, 'bench', 'results', 'scale.json');
    let apiLatencies: unknown;
    let apiLatenciesFrom: { measuredAt: string; runStagesRows: number } | undefined;
    if (!values['skip-api'] && largestRun) {
      apiLatencies = await measureApiLatencies({ databaseUrl: db.url, redisUrl: servers.redisUrl, runId: largestRun });
    } else if (existsSync(resultsFile)) {
      const earlier = JSON.parse(readFileSync(resultsFile, 'utf8')) as { apiLatencies?: unknown; apiLatenciesFrom?: typeof apiLatenciesFrom; measuredAt: string; plans: Array<{ real: { runStagesRows: number } }> };
      if (earlier.apiLatencies) {
        apiLatencies = earlier.apiLatencies;
        apiLatenciesFrom = earlier.apiLatenciesFrom ?? { measuredAt: earlier.measuredAt, runStagesRows: earlier.plans.at(-1)!.real.runStagesRows };
      }
    }
    const result = {
      benchmark: 'scale',
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: loadavg().map((l) => round(l, 2)) },
      servers: servers.description,
      dataset: { name: dataset.name, devItems: dataset.items, generateSeconds: dataset.generateMs === undefined ? undefined : round(dataset.generateMs / 1000) },
      plans,
      ...(apiLatencies === undefined ? {} : { apiLatencies }),
      ...(apiLatenciesFrom === undefined ? {} : { apiLatenciesFrom }),
      targets: { wallSeconds: 60, peakRssMiB: 512 },
      note: [
        'Each plan runs in a child process (bench/scale/plan-child.ts) that opens an orchestrator core as the CLI does and calls Planner.planRun, which streams: stages expanded, keyed, written (one multi-row insert per chunk into run_stages, in one transaction) and estimated in chunks.',
        'plannerCpuSeconds: CPU time of the planning process during planRun; postgresBackendCpuSeconds: CPU time of the Postgres backends serving the bench database meanwhile (sampled from /proc): on a 2-core machine with nothing else running, a plan takes about the larger of the two, as chunks are stored while the next ones are keyed. Wall times depend on the load average recorded with the machine (this machine is shared).',
        'wallSeconds: Planner.planRun alone (admission, dataset reads, expansion, keying, reuse lookup, estimate, writes, commit, ANALYZE), not the process start. peakRssMiB: the child\'s maximum resident set (getrusage), process start included. rssMiBOverPlan: RSS sampled every 250 ms while planning.',
        'dryRun writes only the plan\'s keys (a temporary table: which keys are new to the plan, and stored) and rolls back. rowsPerSecond: run_stages rows written per second of the real plan. stageJobs: distinct stage keys still to run (variants share the stages they agree on).',
        'The sweep is RB-SQL with N sampling temperatures x 2 simulated models over the first M dev items, N the fewest that reaches the target number of stage jobs over the whole split and M the fewest items that still do. Redis and Postgres are the benchmark\'s own (servers), started for the run with initdb\'s default settings.',
      ].join(' '),
      measuredAt: new Date().toISOString(),
    };
    mkdirSync(join(root, 'bench', 'results'), { recursive: true });
    writeFileSync(resultsFile, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await db.drop().catch(() => undefined);
    await servers.stop().finally(() => rmSync(dataDir, { recursive: true, force: true }));
  }
}

main().catch((e: Error) => {
  console.error(e.stack);
  process.exit(1);
});
