// bench/rate-limit: N worker processes share one simulated model limited to 600 RPM and 60k input TPM.
// Measures utilisation of the binding limit, 429s as a share of HTTP requests and attempts per request,
// with the shared Redis budget on and, for comparison, off. Writes bench/results/rate-limit.json.
// The openai modes run the simulator the way OpenAI counts (prompt + max_tokens charged at admission against one TPM,
// rolling window), with limits declared equal to the server's (openai), 4x too high (openai-high) or 2x too low
// (openai-low). --time-scale k compresses them: a 60/k s window holding the same tokens (limits k x per minute).
//   node -r @swc-node/register bench/rate-limit/run.ts [--duration 180] [--workers 4] [--quick] [--modes on,off,openai,openai-high,openai-low]
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { parseSimConfig, startLlmSimulator, type ModelStats } from '@sqlsweep/llm-sim';
import { spiderPrompts } from './prompts';
import type { WorkerReport } from './worker';

const root = join(__dirname, '..', '..');
const spiderDir = join(root, '..', 'shared', 'datasets', 'spider-sample');

const program = new Command('bench-rate-limit')
  .option('--duration <s>', 'seconds per mode', (v) => Number(v), 180)
  .option('--workers <n>', 'worker processes', (v) => Number(v), 4)
  .option('--concurrency <n>', 'requests in flight per worker', (v) => Number(v), 8)
  .option('--rpm <n>', 'simulated requests per minute', (v) => Number(v), 600)
  .option('--tpm <n>', 'simulated input tokens per minute', (v) => Number(v), 60_000)
  .option('--modes <list>', 'modes to run: on, off, openai, openai-high, openai-low', 'on,off')
  .option('--max-tokens <n>', 'max_tokens of every call in the openai modes', (v) => Number(v), 512)
  .option('--time-scale <k>', 'openai modes: a 60/k s rolling window with limits k x per minute', (v) => Number(v), 1)
  .option('--quick', 'a 20-second check per mode')
  .parse();
const opts = program.opts<{ duration: number; workers: number; concurrency: number; rpm: number; tpm: number; modes: string; maxTokens: number; timeScale: number; quick?: boolean }>();
const duration = opts.quick ? 20 : opts.duration;

type Mode = 'on' | 'off' | 'openai' | 'openai-high' | 'openai-low' | 'openai-contended';
const MODES: Mode[] = ['on', 'off', 'openai', 'openai-high', 'openai-low', 'openai-contended'];

interface OpenAiFigures {
  windowS: number;
  serverTpm: number;
  declaredTpm: number;
  maxTokens: number;
  /** Tokens the server charged: prompt + max_tokens of every admitted call. */
  chargedTokens: number;
  /** Charged tokens after the first window / what the window's limit allows over that span. */
  steadyStateUtilisationOfTpm: number;
  share429AfterFirstWindow: number;
  max429sInOneSecond: number;
  /** Over each window-long "minute" with 429s: the largest share of them in any one second (the herd figure). */
  maxShareOfMinute429sInOneSecond: number | null;
  /** Our provider 429s in each window: with a handful per window the share above says little, this says how many. */
  our429sPerWindow: number[];
  /** What the client logged when the server said it allows more than declared. */
  reportedServerAllowsMore: string | null;
}

interface ModeResult {
  limiter: Mode;
  durationS: number;
  completed: number;
  attempts: number;
  http429: number;
  serverErrors: number;
  acceptedInputTokens: number;
  acceptedRequests: number;
  bindingLimit: 'rpm' | 'input_tpm' | 'tpm';
  /** Accepted / what the server could accept in the run: its initial one-minute bucket (or window) plus the refill. */
  utilisationOfBindingLimit: number;
  /** Accepted after a warm-up (30 s, or a third of a short run) / limit over that span: the initial burst spent. */
  steadyStateUtilisation: number;
  share429OfRequests: number;
  attemptsPerRequest: number;
  openai?: OpenAiFigures;
  /** openai-contended: the other application's requests on the same key, sent without any budget. */
  competitor?: { requests: number; rateLimited: number };
}

/**
 * Another application on the same key: half-way through every window it sends, at once and with no budget, requests
 * worth 40 % of the window's tokens. The budget then meets 429s it could not foresee; what matters is how it releases
 * the calls that wait after them.
 */
async function contend(simUrl: string, windowS: number, until: number): Promise<{ requests: number; rateLimited: number }> {
  const prompts = spiderPrompts(spiderDir);
  const counts = { requests: 0, rateLimited: 0 };
  const perBurst = Math.round((0.4 * opts.tpm) / (400 + opts.maxTokens));
  await new Promise((r) => setTimeout(r, (windowS / 2) * 1000));
  let next = 0;
  while (Date.now() < until) {
    await Promise.all(
      Array.from({ length: perBurst }, async () => {
        const res = await fetch(`${simUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer other-app' },
          body: JSON.stringify({ model: 'bench-model', messages: prompts[next++ % prompts.length], temperature: 0, max_tokens: opts.maxTokens }),
        });
        counts.requests++;
        if (res.status === 429) counts.rateLimited++;
        await res.arrayBuffer();
      }),
    );
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(windowS * 1000, until - Date.now()))));
  }
  return counts;
}

async function runMode(mode: Mode): Promise<ModeResult> {
  const limiter = mode !== 'off';
  const openai = mode.startsWith('openai');
  const k = openai ? opts.timeScale : 1;
  const windowS = 60 / k;
  const serverRpm = opts.rpm * k;
  const serverTpm = opts.tpm * k;
  const declaredTpm = serverTpm * (mode === 'openai-high' ? 4 : mode === 'openai-low' ? 0.5 : 1);
  const latencyMs = { median: 300, p95: 900, perOutputToken: 1 };
  const config = parseSimConfig(
    {
      models: {
        'bench-model': openai
          ? { accuracy: 0.8, accounting: 'openai', windowSeconds: windowS, rpm: serverRpm, tpm: serverTpm, latencyMs }
          : { accuracy: 0.8, rpm: opts.rpm, tpm: opts.tpm, outputTpm: 1_000_000, latencyMs },
      },
    },
    'bench sim config',
  );
  const sim = await startLlmSimulator({ datasetDirs: [spiderDir], config });
  const limits = openai ? { rpm: serverRpm, tpm: declaredTpm, concurrency: 64 } : { rpm: opts.rpm, inputTpm: opts.tpm, outputTpm: 1_000_000, concurrency: 64 };
  const openaiArgs = openai ? { maxTokens: opts.maxTokens, rollingBurstSeconds: windowS / 60 } : {};
  const redisPrefix = `bench:rate-limit:${randomUUID()}`;
  const warmupS = openai ? Math.min(windowS, duration / 3) : Math.min(30, duration / 3);
  let atWarmup: ModelStats | undefined;
  const children = Array.from({ length: opts.workers }, (_, workerIndex) => {
    const child = fork(join(__dirname, 'worker.ts'), [], { execArgv: ['-r', '@swc-node/register'], cwd: root });
    child.send({ simUrl: sim.url, spiderDir, limiter, concurrency: opts.concurrency, workerIndex, redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', redisPrefix, limits, ...openaiArgs });
    const ready = new Promise<void>((resolve) => child.once('message', () => resolve()));
    return { child, workerIndex, ready };
  });
  await Promise.all(children.map((c) => c.ready));
  // The clock starts when every worker is loaded, so start-up time does not count against utilisation.
  const started = Date.now();
  const contention = mode === 'openai-contended' ? contend(sim.url, windowS, started + duration * 1000) : undefined;
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
  const competitor = await contention;
  const elapsedS = (Date.now() - started) / 1000;
  const stats = sim.simulator.statsSnapshot()['bench-model']!;
  await sim.close();

  const sum = (key: keyof WorkerReport) => reports.reduce((a, r) => a + (r[key] as number), 0);
  const completed = sum('completed');
  const acceptedInput = stats.inputTokens;
  const accepted = stats.ok + stats.serverErrors;
  // The token count a limit sees: input tokens, or under OpenAI's counting prompt + max_tokens of every admitted call.
  const tokens = (s: ModelStats) => s.inputTokens + (openai ? (s.ok + s.serverErrors) * opts.maxTokens : 0);
  const tokensPerRequest = tokens(stats) / Math.max(1, accepted);
  const binding: ModeResult['bindingLimit'] = tokensPerRequest * serverRpm > serverTpm ? (openai ? 'tpm' : 'input_tpm') : 'rpm';
  const limitPerS = binding === 'rpm' ? serverRpm / 60 : serverTpm / 60;
  const used = binding === 'rpm' ? accepted : tokens(stats);
  const usedAtWarmup = atWarmup ? (binding === 'rpm' ? atWarmup.ok + atWarmup.serverErrors : tokens(atWarmup)) : 0;
  return {
    limiter: mode,
    durationS: Math.round(elapsedS * 10) / 10,
    completed,
    attempts: sum('attempts'),
    // Under contention the other application's requests and 429s are not ours: counted apart.
    http429: stats.rateLimited - (competitor?.rateLimited ?? 0),
    serverErrors: stats.serverErrors,
    acceptedInputTokens: acceptedInput,
    acceptedRequests: accepted,
    bindingLimit: binding,
    utilisationOfBindingLimit: round(used / (limitPerS * windowS + limitPerS * elapsedS)),
    steadyStateUtilisation: atWarmup ? round((used - usedAtWarmup) / (limitPerS * (elapsedS - warmupS))) : NaN,
    share429OfRequests: round((stats.rateLimited - (competitor?.rateLimited ?? 0)) / Math.max(1, stats.requests - (competitor?.requests ?? 0))),
    attemptsPerRequest: round(sum('attempts') / Math.max(1, completed)),
    ...(competitor ? { competitor } : {}),
    ...(openai ? { openai: openAiFigures({ windowS, serverTpm, declaredTpm, started, elapsedS, warmupS, stats, atWarmup, reports }) } : {}),
  };
}

function openAiFigures(f: {
  windowS: number;
  serverTpm: number;
  declaredTpm: number;
  started: number;
  elapsedS: number;
  warmupS: number;
  stats: ModelStats;
  atWarmup: ModelStats | undefined;
  reports: WorkerReport[];
}): OpenAiFigures {
  const charged = (s: ModelStats) => s.inputTokens + (s.ok + s.serverErrors) * opts.maxTokens;
  const refusedAt = f.reports.flatMap((r) => r.rateLimitedAt.map((t) => (t - f.started) / 1000));
  const afterFirst = refusedAt.filter((t) => t >= f.windowS).length;
  const requestsAfterFirst = f.atWarmup ? f.stats.requests - f.atWarmup.requests : 0;
  const perSecond = new Map<number, number>();
  for (const t of refusedAt) perSecond.set(Math.floor(t), (perSecond.get(Math.floor(t)) ?? 0) + 1);
  const perWindow = new Map<number, number>();
  for (const t of refusedAt) perWindow.set(Math.floor(t / f.windowS), (perWindow.get(Math.floor(t / f.windowS)) ?? 0) + 1);
  const shares = [...perSecond].map(([second, n]) => n / perWindow.get(Math.floor(second / f.windowS))!);
  return {
    windowS: f.windowS,
    serverTpm: f.serverTpm,
    declaredTpm: f.declaredTpm,
    maxTokens: opts.maxTokens,
    chargedTokens: charged(f.stats),
    steadyStateUtilisationOfTpm: f.atWarmup ? round((charged(f.stats) - charged(f.atWarmup)) / ((f.serverTpm / 60) * (f.elapsedS - f.warmupS))) : NaN,
    share429AfterFirstWindow: round(afterFirst / Math.max(1, requestsAfterFirst)),
    max429sInOneSecond: Math.max(0, ...perSecond.values()),
    maxShareOfMinute429sInOneSecond: shares.length ? round(Math.max(...shares)) : null,
    our429sPerWindow: Array.from({ length: Math.ceil(f.elapsedS / f.windowS) }, (_, w) => perWindow.get(w) ?? 0),
    reportedServerAllowsMore: f.reports.map((r) => r.declaredTooLow).find((x) => x) ?? null,
  };
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

async function main(): Promise<void> {
  const modes = opts.modes.split(',').map((m) => m.trim());
  const results: ModeResult[] = [];
  for (const mode of modes) {
    if (!MODES.includes(mode as Mode)) throw new Error(`--modes: unknown mode "${mode}" (use ${MODES.join(', ')})`);
    process.stderr.write(`rate-limit bench: mode ${mode}, ${opts.workers} workers, ${duration} s ...\n`);
    const r = await runMode(mode as Mode);
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
      openaiModes: {
        accounting: 'prompt + max_tokens charged at admission against one TPM, never refunded, rolling window',
        windowS: 60 / opts.timeScale,
        timeScale: opts.timeScale,
        serverLimits: { rpm: opts.rpm * opts.timeScale, tpm: opts.tpm * opts.timeScale },
        maxTokens: opts.maxTokens,
      },
    },
    goals: {
      utilisationOfBindingLimit: '>= 0.95',
      share429OfRequests: '<= 0.01',
      attemptsPerRequest: '<= 1.05',
      openai: { steadyStateUtilisationOfTpm: '>= 0.95', share429OfRequests: '<= 0.01', attemptsPerRequest: '<= 1.05', maxShareOfMinute429sInOneSecond: '<= 0.05' },
      'openai-high': { share429AfterFirstWindow: '<= 0.03' },
      'openai-low': { reportedServerAllowsMore: 'set' },
    },
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
