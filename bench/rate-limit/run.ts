// bench/rate-limit: N worker processes share one simulated model limited to 600 RPM and 60k input TPM.
// Measures utilisation of the binding limit, 429s as a share of HTTP requests and attempts per request,
// with the shared Redis budget on and, for comparison, off. Writes bench/results/rate-limit.json.
// The openai modes run the simulator the way OpenAI counts (prompt + max_tokens charged at admission against one TPM,
// rolling window), with limits declared equal to the server's (openai), 4x too high (openai-high) or 2x too low
// (openai-low). openai-contended adds another application bursting on the same key without a budget. openai-herd
// provokes Retry-After waves: limits declared 2x too high against a server that sends no x-ratelimit-* headers, so the
// budget learns nothing but its 429s and their Retry-After, over and over, with 32 calls per worker waiting; the herd
// figures say whether the calls blocked behind each Retry-After are released all at once. openai-herd-unpaced is the
// same without the budget (calls honour only their Retry-After): it shows what a herd looks like in those figures.
// openai-learned-caps is openai with every call attributed to a stage, so the client sends the stage's learned output
// cap as max_tokens instead of --max-tokens: `comparisons` gives its answers per second over openai's.
// --time-scale k compresses them: a 60/k s window holding the same tokens (limits k x per minute).
// The budget's Redis is the benchmark's own (bench/private-servers.ts), started for the run and removed afterwards.
//   node -r @swc-node/register bench/rate-limit/run.ts [--duration 180] [--workers 4] [--quick] [--modes on,off,openai,openai-high,openai-low,openai-contended,openai-herd,openai-herd-unpaced,openai-learned-caps]
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { parseSimConfig, startLlmSimulator, type ModelStats } from '@sqlsweep/llm-sim';
import { startPrivateServers } from '../private-servers';
import { spiderPrompts } from './prompts';
import type { WorkerReport } from './worker';

const root = join(__dirname, '..', '..');
const spiderDir = join(root, 'test', 'fixtures', 'benchmark-samples', 'spider-sample');

const program = new Command('bench-rate-limit')
  .option('--duration <s>', 'seconds per mode', (v) => Number(v), 180)
  .option('--workers <n>', 'worker processes', (v) => Number(v), 4)
  .option('--concurrency <n>', 'requests in flight per worker', (v) => Number(v), 8)
  .option('--rpm <n>', 'simulated requests per minute', (v) => Number(v), 600)
  .option('--tpm <n>', 'simulated input tokens per minute', (v) => Number(v), 60_000)
  .option('--modes <list>', 'modes to run: on, off, openai, openai-high, openai-low, openai-contended, openai-herd, openai-herd-unpaced, openai-learned-caps', 'on,off')
  .option('--max-tokens <n>', 'max_tokens of every call in the openai modes', (v) => Number(v), 512)
  .option('--time-scale <k>', 'openai modes: a 60/k s rolling window with limits k x per minute', (v) => Number(v), 1)
  .option('--quick', 'a 20-second check per mode')
  .option('--merge', "keep the other modes' results already in bench/results/rate-limit.json (replacing those run now)")
  .parse();
const opts = program.opts<{ duration: number; workers: number; concurrency: number; rpm: number; tpm: number; modes: string; maxTokens: number; timeScale: number; quick?: boolean; merge?: boolean }>();
const duration = opts.quick ? 20 : opts.duration;

type Mode = 'on' | 'off' | 'openai' | 'openai-high' | 'openai-low' | 'openai-contended' | 'openai-herd' | 'openai-herd-unpaced' | 'openai-learned-caps';
const MODES: Mode[] = ['on', 'off', 'openai', 'openai-high', 'openai-low', 'openai-contended', 'openai-herd', 'openai-herd-unpaced', 'openai-learned-caps'];
const HERD_MODES: Mode[] = ['openai-herd', 'openai-herd-unpaced'];
/** Calls per worker in the herd modes: 128 in all wait behind each Retry-After. */
const HERD_CONCURRENCY = 32;

/** The other application's bursts: what share of a window's tokens, every how many windows. */
const COMPETITOR: Partial<Record<Mode, { share: number; everyWindows: number }>> = {
  'openai-contended': { share: 0.4, everyWindows: 1 },
};

/** A window needs this many of our 429s before its largest one-second share says anything about a herd. */
const HERD_MIN_429S = 20;

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
  /**
   * The herd figure where it means something: over the windows with at least HERD_MIN_429S of our 429s, the largest
   * share of the window's 429s that came in one second (null when no window had that many).
   */
  herd: { minimum429sPerWindow: number; windowsCounted: number; maxShareInOneSecond: number | null; perWindow: { window: number; n429: number; maxInOneSecond: number; maxShareInOneSecond: number }[] };
  /** Our 429s in each second of the run (seconds since the start), only the seconds that had any. */
  our429sPerSecond: Record<string, number>;
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
 * Another application on the same key: half-way through every `everyWindows`-th window it sends, at once and with no
 * budget, requests worth `share` of the window's tokens. The budget then meets 429s it could not foresee; what matters is how it releases
 * the calls that wait after them.
 */
async function contend(simUrl: string, windowS: number, until: number, burst: { share: number; everyWindows: number }): Promise<{ requests: number; rateLimited: number }> {
  const prompts = spiderPrompts(spiderDir);
  const counts = { requests: 0, rateLimited: 0 };
  // The window holds opts.tpm x time-scale tokens in windowS = 60 / time-scale seconds: opts.tpm of them per window.
  const perBurst = Math.round((burst.share * opts.tpm) / (400 + opts.maxTokens));
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
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(burst.everyWindows * windowS * 1000, until - Date.now()))));
  }
  return counts;
}

async function runMode(mode: Mode, redisUrl: string): Promise<ModeResult> {
  // openai-herd-unpaced calibrates the herd figures: no budget, every call only honours its 429's Retry-After, so the
  // calls blocked behind one come back at the same instant (as all of them did before the budget paced its release).
  const limiter = mode !== 'off' && mode !== 'openai-herd-unpaced';
  const herd = HERD_MODES.includes(mode);
  const openai = mode.startsWith('openai');
  const k = openai ? opts.timeScale : 1;
  const windowS = 60 / k;
  const serverRpm = opts.rpm * k;
  const serverTpm = opts.tpm * k;
  const declaredTpm = serverTpm * (mode === 'openai-high' ? 4 : herd ? 4 : mode === 'openai-low' ? 0.5 : 1);
  const latencyMs = { median: 300, p95: 900, perOutputToken: 1 };
  const config = parseSimConfig(
    {
      models: {
        'bench-model': openai
          ? { accuracy: 0.8, accounting: 'openai', windowSeconds: windowS, rpm: serverRpm, tpm: serverTpm, latencyMs, rateLimitHeaders: !herd }
          : { accuracy: 0.8, rpm: opts.rpm, tpm: opts.tpm, outputTpm: 1_000_000, latencyMs },
      },
    },
    'bench sim config',
  );
  const sim = await startLlmSimulator({ datasetDirs: [spiderDir], config });
  const limits = openai ? { rpm: serverRpm, tpm: declaredTpm, concurrency: 64 } : { rpm: opts.rpm, inputTpm: opts.tpm, outputTpm: 1_000_000, concurrency: 64 };
  const openaiArgs = openai ? { maxTokens: opts.maxTokens, rollingBurstSeconds: windowS / 60, ...(mode === 'openai-learned-caps' ? { stage: 'bench.sql' } : {}) } : {};
  const redisPrefix = `bench:rate-limit:${randomUUID()}`;
  const warmupS = openai ? Math.min(windowS, duration / 3) : Math.min(30, duration / 3);
  let atWarmup: ModelStats | undefined;
  const children = Array.from({ length: opts.workers }, (_, workerIndex) => {
    const child = fork(join(__dirname, 'worker.ts'), [], { execArgv: ['-r', '@swc-node/register'], cwd: root });
    child.send({ simUrl: sim.url, spiderDir, limiter, concurrency: herd ? HERD_CONCURRENCY : opts.concurrency, workerIndex, redisUrl, redisPrefix, limits, ...openaiArgs });
    const ready = new Promise<void>((resolve) => child.once('message', () => resolve()));
    return { child, workerIndex, ready };
  });
  await Promise.all(children.map((c) => c.ready));
  // The clock starts when every worker is loaded, so start-up time does not count against utilisation.
  const started = Date.now();
  const burst = COMPETITOR[mode];
  const contention = burst ? contend(sim.url, windowS, started + duration * 1000, burst) : undefined;
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
  const tokens = (s: ModelStats) => s.inputTokens + (openai ? s.maxTokensAdmitted : 0);
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
  const charged = (s: ModelStats) => s.inputTokens + s.maxTokensAdmitted;
  const refusedAt = f.reports.flatMap((r) => r.rateLimitedAt.map((t) => (t - f.started) / 1000));
  const afterFirst = refusedAt.filter((t) => t >= f.windowS).length;
  const requestsAfterFirst = f.atWarmup ? f.stats.requests - f.atWarmup.requests : 0;
  const perSecond = new Map<number, number>();
  for (const t of refusedAt) perSecond.set(Math.floor(t), (perSecond.get(Math.floor(t)) ?? 0) + 1);
  const perWindow = new Map<number, number>();
  for (const t of refusedAt) perWindow.set(Math.floor(t / f.windowS), (perWindow.get(Math.floor(t / f.windowS)) ?? 0) + 1);
  const shares = [...perSecond].map(([second, n]) => n / perWindow.get(Math.floor(second / f.windowS))!);
  const herdWindows = [...perWindow].filter(([, n]) => n >= HERD_MIN_429S).sort(([a], [b]) => a - b).map(([window, n429]) => {
    const inWindow = [...perSecond].filter(([second]) => Math.floor(second / f.windowS) === window).map(([, n]) => n);
    const maxInOneSecond = Math.max(...inWindow);
    return { window, n429, maxInOneSecond, maxShareInOneSecond: round(maxInOneSecond / n429) };
  });
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
    herd: {
      minimum429sPerWindow: HERD_MIN_429S,
      windowsCounted: herdWindows.length,
      maxShareInOneSecond: herdWindows.length ? Math.max(...herdWindows.map((w) => w.maxShareInOneSecond)) : null,
      perWindow: herdWindows,
    },
    our429sPerSecond: Object.fromEntries([...perSecond].sort(([a], [b]) => a - b).map(([second, n]) => [String(second), n])),
  };
}

/** Side-by-side figures of modes measured in this run. */
function comparisons(results: ModeResult[]): Record<string, number> {
  const perSecond = (mode: Mode) => {
    const r = results.find((x) => x.limiter === mode);
    return r ? r.completed / r.durationS : undefined;
  };
  const [plain, learned] = [perSecond('openai'), perSecond('openai-learned-caps')];
  return plain && learned ? { learnedCapsAnswersPerSecondOverOpenai: round(learned / plain) } : {};
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

async function main(): Promise<void> {
  const modes = opts.modes.split(',').map((m) => m.trim());
  for (const mode of modes) if (!MODES.includes(mode as Mode)) throw new Error(`--modes: unknown mode "${mode}" (use ${MODES.join(', ')})`);
  const results: ModeResult[] = [];
  const servers = await startPrivateServers({ name: 'rate-limit', postgres: false });
  try {
    for (const mode of modes) {
      process.stderr.write(`rate-limit bench: mode ${mode}, ${opts.workers} workers, ${duration} s ...\n`);
      const r = await runMode(mode as Mode, servers.redisUrl);
      process.stderr.write(`${JSON.stringify(r)}\n`);
      results.push(r);
    }
  } finally {
    await servers.stop();
  }
  const out = {
    bench: 'rate-limit',
    date: new Date().toISOString(),
    machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, memoryGiB: Math.round(os.totalmem() / 2 ** 30) },
    setup: {
      workers: opts.workers,
      redis: servers.description,
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
        herdModes: { concurrencyPerWorker: HERD_CONCURRENCY, declaredTpm: '4 x the server\'s', rateLimitHeaders: false, minimum429sPerWindow: HERD_MIN_429S },
      },
    },
    goals: {
      utilisationOfBindingLimit: '>= 0.95',
      share429OfRequests: '<= 0.01',
      attemptsPerRequest: '<= 1.05',
      openai: { steadyStateUtilisationOfTpm: '>= 0.95', share429OfRequests: '<= 0.01', attemptsPerRequest: '<= 1.05', maxShareOfMinute429sInOneSecond: '<= 0.05' },
      'openai-high': { share429AfterFirstWindow: '<= 0.03' },
      'openai-low': { reportedServerAllowsMore: 'set' },
      'openai-herd': { 'herd.maxShareInOneSecond': '<= 0.05 (null: no window had herd.minimum429sPerWindow 429s)' },
      'openai-learned-caps': { 'comparisons.learnedCapsAnswersPerSecondOverOpenai': '> 1, with the openai goals' },
    },
    results: results as ModeResult[],
    comparisons: comparisons(results),
    merged: undefined as string | undefined,
  };
  const dir = join(root, 'bench', 'results');
  const file = join(dir, 'rate-limit.json');
  if (opts.merge && existsSync(file)) {
    const previous = JSON.parse(readFileSync(file, 'utf8')) as { date: string; results: ModeResult[] };
    const kept = previous.results.filter((r) => !modes.includes(r.limiter));
    out.results = [...kept, ...results].sort((a, b) => MODES.indexOf(a.limiter) - MODES.indexOf(b.limiter));
    out.merged = `modes ${modes.join(', ')} measured at ${out.date}; ${kept.map((r) => r.limiter).join(', ') || 'none'} kept from the run of ${previous.date} (same setup unless it says otherwise)`;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

main().catch((err: Error) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
