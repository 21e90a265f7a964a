// bench/rate-limit: N worker processes share one simulated model limited to 600 RPM and 60k input TPM.
// Measures utilisation of the binding limit, 429s as a share of HTTP requests and attempts per request,
// with the shared Redis budget on and, for comparison, off. Writes bench/results/rate-limit.json.
//   node -r @swc-node/register bench/rate-limit/run.ts [--duration 180] [--workers 4] [--quick] [--modes on,off]
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { parseSimConfig, startLlmSimulator, type ModelStats } from '@sqlsweep/llm-sim';
import type { WorkerReport } from './worker';

const root = join(__dirname, '..', '..');
const spiderDir = join(root, '..', 'shared', 'datasets', 'spider-sample');

const program = new Command('bench-rate-limit')
  .option('--duration <s>', 'seconds per mode', (v) => Number(v), 180)
  .option('--workers <n>', 'worker processes', (v) => Number(v), 4)
  .option('--concurrency <n>', 'requests in flight per worker', (v) => Number(v), 8)
  .option('--rpm <n>', 'simulated requests per minute', (v) => Number(v), 600)
  .option('--tpm <n>', 'simulated input tokens per minute', (v) => Number(v), 60_000)
  .option('--modes <list>', 'limiter modes to run: on, off', 'on,off')
  .option('--quick', 'a 20-second check per mode')
  .parse();
const opts = program.opts<{ duration: number; workers: number; concurrency: number; rpm: number; tpm: number; modes: string; quick?: boolean }>();
const duration = opts.quick ? 20 : opts.duration;

interface ModeResult {
  limiter: 'on' | 'off';
  durationS: number;
  completed: number;
  attempts: number;
  http429: number;
  serverErrors: number;
  acceptedInputTokens: number;
  acceptedRequests: number;
  bindingLimit: 'rpm' | 'input_tpm';
  /** Accepted / what the server could accept in the run: its initial one-minute bucket plus the refill. */
  utilisationOfBindingLimit: number;
  /** Accepted after a warm-up (30 s, or a third of a short run) / limit over that span: the initial burst spent. */
  steadyStateUtilisation: number;
  share429OfRequests: number;
  attemptsPerRequest: number;
}

async function runMode(limiter: boolean): Promise<ModeResult> {
  const config = parseSimConfig(
    { models: { 'bench-model': { accuracy: 0.8, rpm: opts.rpm, tpm: opts.tpm, outputTpm: 1_000_000, latencyMs: { median: 300, p95: 900, perOutputToken: 1 } } } },
    'bench sim config',
  );
  const sim = await startLlmSimulator({ datasetDirs: [spiderDir], config });
  const limits = { rpm: opts.rpm, inputTpm: opts.tpm, outputTpm: 1_000_000, concurrency: 64 };
  const redisPrefix = `bench:rate-limit:${randomUUID()}`;
  const warmupS = Math.min(30, duration / 3);
  let atWarmup: ModelStats | undefined;
  const children = Array.from({ length: opts.workers }, (_, workerIndex) => {
    const child = fork(join(__dirname, 'worker.ts'), [], { execArgv: ['-r', '@swc-node/register'], cwd: root });
    child.send({ simUrl: sim.url, spiderDir, limiter, concurrency: opts.concurrency, workerIndex, redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', redisPrefix, limits });
    const ready = new Promise<void>((resolve) => child.once('message', () => resolve()));
    return { child, workerIndex, ready };
  });
  await Promise.all(children.map((c) => c.ready));
  // The clock starts when every worker is loaded, so start-up time does not count against utilisation.
  const started = Date.now();
  const deadline = started + duration * 1000;
  const snapshot = setTimeout(() => (atWarmup = sim.simulator.statsSnapshot()['bench-model']), warmupS * 1000);
  const reports = await Promise.all(
    children.map(({ child, workerIndex }) => {
      const report = new Promise<WorkerReport>((resolve, reject) => {
        child.once('message', (m) => resolve(m as WorkerReport));
        child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`worker ${workerIndex} exited with ${code}`))));
      });
      child.send({ deadline });
      return report;
    }),
  );
  clearTimeout(snapshot);
  const elapsedS = (Date.now() - started) / 1000;
  const stats = sim.simulator.statsSnapshot()['bench-model']!;
  await sim.close();

  const sum = (k: keyof WorkerReport) => reports.reduce((a, r) => a + (r[k] as number), 0);
  const completed = sum('completed');
  const acceptedInput = stats.inputTokens;
  const accepted = stats.ok + stats.serverErrors;
  const meanPrompt = acceptedInput / Math.max(1, stats.ok);
  const binding: ModeResult['bindingLimit'] = meanPrompt * opts.rpm > opts.tpm ? 'input_tpm' : 'rpm';
  const limitPerS = binding === 'input_tpm' ? opts.tpm / 60 : opts.rpm / 60;
  const used = binding === 'input_tpm' ? acceptedInput : accepted;
  const usedAtWarmup = atWarmup ? (binding === 'input_tpm' ? atWarmup.inputTokens : atWarmup.ok + atWarmup.serverErrors) : 0;
  return {
    limiter: limiter ? 'on' : 'off',
    durationS: Math.round(elapsedS * 10) / 10,
    completed,
    attempts: sum('attempts'),
    http429: stats.rateLimited,
    serverErrors: stats.serverErrors,
    acceptedInputTokens: acceptedInput,
    acceptedRequests: accepted,
    bindingLimit: binding,
    utilisationOfBindingLimit: round(used / (limitPerS * 60 + limitPerS * elapsedS)),
    steadyStateUtilisation: atWarmup ? round((used - usedAtWarmup) / (limitPerS * (elapsedS - warmupS))) : NaN,
    share429OfRequests: round(stats.rateLimited / Math.max(1, stats.requests)),
    attemptsPerRequest: round(sum('attempts') / Math.max(1, completed)),
  };
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

async function main(): Promise<void> {
  const modes = opts.modes.split(',').map((m) => m.trim());
  const results: ModeResult[] = [];
  for (const mode of modes) {
    if (mode !== 'on' && mode !== 'off') throw new Error(`--modes: unknown mode "${mode}" (use on, off)`);
    process.stderr.write(`rate-limit bench: limiter ${mode}, ${opts.workers} workers, ${duration} s ...\n`);
    const r = await runMode(mode === 'on');
    process.stderr.write(`${JSON.stringify(r)}\n`);
    results.push(r);
  }
  const out = {
    bench: 'rate-limit',
    date: new Date().toISOString(),
    machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, memoryGiB: Math.round(os.totalmem() / 2 ** 30) },
    setup: {
      workers: opts.workers,
      concurrencyPerWorker: opts.concurrency,
      simulatorLimits: { rpm: opts.rpm, inputTpm: opts.tpm, bucketSeconds: 60 },
      simulatorLatencyMs: { median: 300, p95: 900 },
      prompts: 'Spider dev (spider-sample): schema DDL + question',
      durationSPerMode: duration,
      quick: !!opts.quick,
    },
    goals: { utilisationOfBindingLimit: '>= 0.95', share429OfRequests: '<= 0.01', attemptsPerRequest: '<= 1.05' },
    results,
  };
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'rate-limit.json'), `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
