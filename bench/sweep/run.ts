/**
 * bench/sweep: every registered pipeline x 2 variants (two simulated models) over minibench dev, with a
 * zero-latency simulator, through real worker processes. Reports pipelines (variant x item) per second, stage jobs
 * per second, and the orchestration cost per stage job next to a no-op BullMQ job's cost measured in the same run.
 *
 *   npm run bench -- sweep [--items N] [--workers N]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { pipelineNames } from '@sqlsweep/contracts';
import { createTestDatabase, testQueuePrefix } from '@sqlsweep/testing';
import { setup } from '../../scripts/setup';
import { runCli, startSimulator, startWorkers } from '../../test/support/e2e';

const root = resolve(__dirname, '..', '..');

async function noopJobCost(redisUrl: string, jobs: number, concurrency: number): Promise<number> {
  const prefix = testQueuePrefix();
  const queue = new Queue('noop', { connection: { url: redisUrl }, prefix });
  await queue.addBulk(Array.from({ length: jobs }, (_, i) => ({ name: 'noop', data: { i }, opts: { jobId: `n${i}`, removeOnComplete: true } })));
  let done = 0;
  const started = performance.now();
  await new Promise<void>((resolveAll) => {
    const worker = new Worker('noop', async () => undefined, { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix, concurrency });
    worker.on('completed', () => {
      if (++done === jobs) void worker.close().then(() => resolveAll());
    });
  });
  const ms = performance.now() - started;
  await queue.obliterate({ force: true });
  await queue.close();
  return ms / jobs;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { items: { type: 'string', default: '75' }, workers: { type: 'string', default: '2' } } });
  const endpoints = await setup({ allowEmbeddedPostgres: false, log: () => undefined });
  process.env.REDIS_URL = endpoints.redisUrl;
  process.env.DATABASE_URL = endpoints.databaseUrl;
  const db = await createTestDatabase(endpoints.databaseUrl);
  const sim = await startSimulator({ config: 'bench/sweep/llm-sim-zero-latency.yaml' });
  const prefix = testQueuePrefix();
  const env = { DATABASE_URL: db.url, REDIS_URL: endpoints.redisUrl, SQLSWEEP_QUEUE_PREFIX: prefix, SQLSWEEP_LLM_SIM_URL: sim.url, SQLSWEEP_DATA_DIR: mkdtempSync(join(tmpdir(), 'sqlsweep-bench-')), LOG_LEVEL: 'warn' };
  const workers = startWorkers(Number(values.workers), env);
  try {
    if ((await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env)).code !== 0) throw new Error('datasets add failed');
    const config = join(env.SQLSWEEP_DATA_DIR, 'bench-sweep.yaml');
    writeFileSync(config, [
      'name: bench-sweep', 'dataset: minibench', 'split: dev', `items: { limit: ${values.items} }`, 'models: [sim-strong, sim-weak]',
      'pipelines:', ...pipelineNames.map((p) => `  - pipeline: ${p}`),
    ].join('\n'));
    // Warm the workers (module loading, replicas, encoder) on two items, then time the whole sweep.
    const warmup = join(env.SQLSWEEP_DATA_DIR, 'bench-warmup.yaml');
    writeFileSync(warmup, readFileSync(config, 'utf8').replace(/items: \{ limit: \d+ \}/, 'items: { limit: 2 }'));
    await runCli(['run', warmup, '--workers', '0', '--no-progress'], env, 1_800_000);
    const started = performance.now();
    const r = await runCli(['run', config, '--workers', '0', '--no-progress', '--fresh-llm'], env, 1_800_000);
    const wallMs = performance.now() - started;
    if (r.code !== 0) throw new Error(`bench sweep failed:\n${r.stdout}\n${r.stderr}`);
    const runId = /run ([0-9a-f-]{36}) created/.exec(r.stdout)![1];
    const run = await db.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
    const variants = await db.db.selectFrom('variants').select('id').where('run_id', '=', runId).execute();
    const pipelinesDone = variants.length * run.item_count;
    const stageJobs = run.stage_jobs;
    const perStageJobMs = wallMs / stageJobs;
    const noopMs = await noopJobCost(endpoints.redisUrl, 5_000, 16);
    const result = {
      benchmark: 'sweep',
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30) },
      pipelines: pipelineNames, variantsPerPipeline: 2, items: run.item_count, workers: Number(values.workers),
      wallSeconds: wallMs / 1000,
      pipelinesPerSecond: pipelinesDone / (wallMs / 1000),
      stageJobs, stageJobsPerSecond: stageJobs / (wallMs / 1000),
      msPerStageJob: perStageJobMs,
      noopBullmqMsPerJob: noopMs,
      overheadRatio: perStageJobMs / noopMs,
      note: 'wall time of `sqlsweep run` (plan to leaderboard) with workers warmed on 2 items and a zero-latency simulator; LLM stages asked afresh (new cache namespace)',
      measuredAt: new Date().toISOString(),
    };
    mkdirSync(join(root, 'bench', 'results'), { recursive: true });
    writeFileSync(join(root, 'bench', 'results', 'sweep.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await sim.stop();
    await db.drop();
  }
}

main().catch((e: Error) => {
  console.error(e.stack);
  process.exit(1);
});
