/**
 * bench/saturation: does a multi-stage sweep keep a real rate limit busy? R3 and DR-Chain (bench/saturation/sweep.yaml,
 * `repeats` samples of each over the minibench dev items) on one simulated model limited to 3,000 RPM and 2 M input
 * TPM, answering with a log-normal latency of median 800 ms and p95 2.5 s (llm-sim.yaml), through real CLI, worker
 * and orchestrator processes on the benchmark's own Redis and Postgres (bench/chaos's servers and stack). The workers
 * run as shipped: adaptive LLM concurrency (SQLSWEEP_LLM_CONCURRENCY=auto) under the shared rate budget.
 *
 * Reports, over the steady part (from 120 s, once the one-minute burst the limits allow is spent, until the LLM queue
 * last held waiting jobs): utilisation of the binding limit, the share of 429s, attempts per request, and per 5 s the
 * calls answered, LLM calls in flight, LLM jobs held and waiting, and the workers' concurrency. Writes
 * bench/results/saturation.json.
 *
 *   npm run bench -- saturation [--repeats 30] [--workers 2] [--items N] [--steady-from 120]
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { ModelStats } from '@sqlsweep/llm-sim';
import { queueKeyPrefix } from '@sqlsweep/queue';
import { createTestDatabase, runCli } from '@sqlsweep/testing';
import { ChaosServers } from '../chaos/servers';
import { processCpuMs, serverCpuMs } from '../sweep/process-cpu';
import { ScenarioStack } from '../chaos/stack';
import { writeModelCatalog } from '../model-catalog';

const root = resolve(__dirname, '..', '..');
const MODEL = 'sim-saturation';
const LIMITS = { rpm: 3000, inputTpm: 2_000_000 };
const SAMPLE_MS = 1_000;
const say = (line: string) => console.log(`[saturation] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, digits = 4) => Number(x.toFixed(digits));

interface Sample {
  /** Seconds since the run was created. */
  t: number;
  requests: number;
  ok: number;
  rateLimited: number;
  serverErrors: number;
  inputTokens: number;
  /** Calls the simulator is answering now. */
  inFlight: number;
  /** stage-llm jobs held by workers (active) and waiting for one (wait + prioritized). */
  llmActive: number;
  llmWaiting: number;
  /** Jobs of the other stage queues waiting or held. */
  otherQueued: number;
  /** The workers' LLM concurrency (sum of their latest). */
  concurrency: number;
  /** The machine's one-minute load average (other people's processes included). */
  load1: number;
}

/** The benchmark's model catalog: configs/models.yaml plus the simulated model at the simulator's limits. */
function writeCatalog(dir: string): string {
  return writeModelCatalog(dir, (models) => {
    models[MODEL] = {
      provider: 'llm-sim',
      pricing: { inputPerMTok: 2.0, cachedInputPerMTok: 0.5, outputPerMTok: 8.0 },
      contextWindow: 128000,
      // No concurrency limit worth the name: a provider tier counts requests and tokens per minute, not calls in flight.
      limits: { rpm: LIMITS.rpm, inputTpm: LIMITS.inputTpm, outputTpm: 2_000_000, concurrency: 10_000 },
    };
  });
}

function writeSweep(dir: string, repeats: number, items?: number): string {
  const sweep = parseYaml(readFileSync(join(__dirname, 'sweep.yaml'), 'utf8')) as Record<string, unknown>;
  sweep.repeats = repeats;
  if (items) sweep.items = { limit: items };
  const file = join(dir, 'sweep.yaml');
  writeFileSync(file, toYaml(sweep));
  return file;
}

async function simStats(url: string): Promise<ModelStats> {
  const res = await fetch(`${url}/sim/stats`, { signal: AbortSignal.timeout(5_000) });
  const stats = ((await res.json()) as Record<string, ModelStats>)[MODEL];
  return stats ?? { requests: 0, ok: 0, rateLimited: 0, serverErrors: 0, dropped: 0, badRequests: 0, abandoned: 0, inFlight: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
}

function commitOf(): { commit: string; uncommittedChanges: boolean } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  return { commit: git('rev-parse', '--short', 'HEAD'), uncommittedChanges: git('status', '--porcelain', '--untracked-files=no') !== '' };
}

/** Per-window figures from the samples: calls answered per second, mean in flight, held and waiting LLM jobs, concurrency. */
function timeline(samples: Sample[], everyS: number) {
  const out = [];
  for (let i = 0; i + 1 < samples.length; i += everyS) {
    const a = samples[i];
    const window = samples.slice(i + 1, i + 1 + everyS);
    const b = window.at(-1)!;
    const mean = (k: keyof Sample) => round(window.reduce((s, x) => s + x[k], 0) / window.length, 1);
    const span = b.t - a.t;
    out.push({
      t: Math.round(a.t), answeredPerS: round((b.ok - a.ok) / span, 1), rateLimited: b.rateLimited - a.rateLimited, inputTokensPerS: Math.round((b.inputTokens - a.inputTokens) / span),
      llmCallsInFlight: mean('inFlight'), llmJobsHeld: mean('llmActive'), llmJobsWaiting: mean('llmWaiting'), otherStageJobsQueued: mean('otherQueued'), workerLlmConcurrency: mean('concurrency'),
      machineLoad1: mean('load1'),
    });
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    repeats: { type: 'string', default: '30' }, workers: { type: 'string', default: '2' }, items: { type: 'string' },
    'steady-from': { type: 'string', default: '120' }, 'log-level': { type: 'string', default: 'info' },
  } });
  const repeats = Number(values.repeats);
  const steadyFromS = Number(values['steady-from']);
  const started = Date.now();
  const loadAtStart = loadavg().map((l) => round(l, 2));
  const servers = await ChaosServers.start(say);
  say(`own Redis on port ${servers.redisPort}, own Postgres on port ${servers.postgresPort}`);
  const work = mkdtempSync(join(tmpdir(), 'sqlsweep-saturation-'));
  const dataDir = join(work, 'data');
  mkdirSync(dataDir);
  let stack: ScenarioStack | undefined;
  const stopAll = async () => {
    await stack?.stop().catch(() => undefined);
    await servers.stop().catch(() => undefined);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopAll().finally(() => process.exit(130)));
  try {
    // Every process started below (CLI, workers, orchestrator) reads the catalog that holds the simulated model.
    process.env.SQLSWEEP_MODELS_FILE = writeCatalog(work);
    const template = await createTestDatabase(servers.postgresUrl);
    await template.db.destroy();
    const added = await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], {
      DATABASE_URL: template.url, REDIS_URL: servers.redisUrl, SQLSWEEP_QUEUE_PREFIX: 'saturation_template', SQLSWEEP_DATA_DIR: dataDir,
    });
    if (added.code !== 0) throw new Error(`datasets add failed:\n${added.stdout}\n${added.stderr}`);
    const logFile = join(work, 'processes.log');
    const log = createWriteStream(logFile);
    const concurrencyByPid = new Map<number, number>();
    stack = await ScenarioStack.start({
      postgresUrl: servers.postgresUrl, redisUrl: servers.redisUrl, template: template.name, dataDir,
      simConfig: 'bench/saturation/llm-sim.yaml', workers: Number(values.workers), logLevel: values['log-level'],
      onLogLine: (source, line) => {
        log.write(`${source} ${line}\n`);
        if (line.includes('"llm concurrency changed"')) {
          const l = JSON.parse(line) as { pid: number; to: number };
          concurrencyByPid.set(l.pid, l.to);
        }
      },
    });
    const sweepFile = writeSweep(work, repeats, values.items ? Number(values.items) : undefined);
    const cli = stack.startCli(sweepFile);
    const runId = await (async () => {
      for (;;) {
        if (cli.exited) throw new Error(`sqlsweep run exited before creating the run:\n${cli.stdout}\n${cli.stderr}`);
        const row = await stack!.db.selectFrom('runs').select(['id', 'stage_jobs', 'item_count']).executeTakeFirst().catch(() => undefined);
        if (row) return row;
        await sleep(250);
      }
    })();
    const createdAt = Date.now();
    say(`run ${runId.id} created: ${runId.stage_jobs} stage jobs, ${runId.item_count} items; sampling every ${SAMPLE_MS} ms`);
    const queues = ['stage-llm', 'stage-sql', 'stage-retrieval'].map((name) => new Queue(name, { connection: { url: servers.redisUrl }, prefix: queueKeyPrefix(stack!.prefix, name) }));
    const samples: Sample[] = [];
    let lastPrint = 0;
    let missedSamples = 0;
    const cpuOf = () => ({
      simulator: processCpuMs({ pids: [stack!.sim.child.pid!] }), workers: processCpuMs({ pids: stack!.workers.map((w) => w.child.pid!) }), ...serverCpuMs({}),
    });
    const cpuAtStart = cpuOf();
    while (!cli.exited) {
      let got;
      try {
        got = await Promise.all([
          simStats(stack.sim.url),
          ...queues.map((q) => q.getJobCounts('wait', 'active', 'prioritized', 'delayed')),
        ]);
      } catch (e) {
        // A busy machine can keep the simulator from answering its stats within 5 s: that second has no sample.
        missedSamples++;
        say(`sample missed: ${(e as Error).message}`);
        await sleep(SAMPLE_MS);
        continue;
      }
      const [s, llm, sql, retrieval] = got;
      const concurrency = [...concurrencyByPid.values()].reduce((a, b) => a + b, 0);
      const other = (c: Record<string, number>) => c.wait + c.active + c.prioritized;
      samples.push({
        t: (Date.now() - createdAt) / 1000, requests: s.requests, ok: s.ok, rateLimited: s.rateLimited, serverErrors: s.serverErrors, inputTokens: s.inputTokens, inFlight: s.inFlight,
        llmActive: llm.active, llmWaiting: llm.wait + llm.prioritized, otherQueued: other(sql) + other(retrieval), concurrency, load1: loadavg()[0],
      });
      const last = samples.at(-1)!;
      if (last.t - lastPrint >= 15) {
        lastPrint = last.t;
        say(`t=${Math.round(last.t)}s answered ${last.ok} (429: ${last.rateLimited}), in flight ${last.inFlight}, llm held ${last.llmActive} waiting ${last.llmWaiting}, other queued ${last.otherQueued}, concurrency ${concurrency}`);
      }
      await sleep(SAMPLE_MS);
    }
    const result = await cli.finished;
    const cpuAtEnd = cpuOf();
    if (result.code !== 0) say(`sqlsweep run exited ${result.code}:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`);
    const endedAt = Date.now();
    await sleep(2_000);
    const final = await simStats(stack.sim.url);
    await Promise.all(queues.map((q) => q.close()));

    // The steady part: from steadyFromS (the limits' one-minute burst spent) to the last sample with LLM jobs waiting.
    const lastBacklog = samples.reduce((at, s, i) => (s.llmWaiting > 0 ? i : at), -1);
    const first = samples.findIndex((s) => s.t >= steadyFromS);
    if (first < 0 || lastBacklog <= first) throw new Error(`no steady part: the LLM queue last held waiting jobs at ${samples[lastBacklog]?.t ?? 'no'} s, before ${steadyFromS} s; raise --repeats`);
    const a = samples[first];
    const b = samples[lastBacklog];
    const spanS = b.t - a.t;
    const accepted = (s: Sample) => s.ok + s.serverErrors;
    const rpmUse = (accepted(b) - accepted(a)) / ((LIMITS.rpm / 60) * spanS);
    const tpmUse = (b.inputTokens - a.inputTokens) / ((LIMITS.inputTpm / 60) * spanS);
    const steady = samples.slice(first, lastBacklog + 1);
    // Which limit binds changes as the sweep moves between stages (R3's generation prompts are long enough for the
    // input TPM to bind, the short ones leave it to the RPM): per 5 s window, the more used of the two.
    const windows = [];
    for (let i = 0; i + 5 < steady.length; i += 5) {
      const [x, y] = [steady[i], steady[i + 5]];
      const span = y.t - x.t;
      const rpm = (accepted(y) - accepted(x)) / ((LIMITS.rpm / 60) * span);
      const tpm = (y.inputTokens - x.inputTokens) / ((LIMITS.inputTpm / 60) * span);
      windows.push({ rpm, tpm, starved: steady.slice(i, i + 6).some((s) => s.llmWaiting === 0) });
    }
    // A window above the sustained rate is spending the one-minute bucket a limit refills (both the simulator's and
    // the budget's): it counts as fully busy, no more.
    const windowUse = windows.reduce((t, w) => t + Math.min(1, Math.max(w.rpm, w.tpm)), 0) / Math.max(1, windows.length);
    const windowUseUncapped = windows.reduce((t, w) => t + Math.max(w.rpm, w.tpm), 0) / Math.max(1, windows.length);
    const binding = tpmUse > rpmUse ? 'input_tpm' : 'rpm';
    const mean = (k: keyof Sample) => round(steady.reduce((s, x) => s + x[k], 0) / steady.length, 1);
    const out = {
      benchmark: 'saturation',
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadavg().map((l) => round(l, 2)) },
      ...commitOf(),
      setup: {
        sweep: 'bench/saturation/sweep.yaml', pipelines: ['r3', 'dr-chain'], model: MODEL, repeats, items: runId.item_count, stageJobs: runId.stage_jobs,
        limits: { ...LIMITS, declaredEqualToServer: true, simulator: 'token buckets refilled over a minute (llm-sim)' },
        latencyMs: { distribution: 'log-normal', median: 800, p95: 2500 }, serverErrorRate: 0.002,
        workers: Number(values.workers), workerLlmConcurrency: 'auto (SQLSWEEP_LLM_CONCURRENCY default)', steadyFromS,
      },
      run: {
        missedSamples,
        // CPU seconds over the run (user + system): the simulator answering, the worker processes, this machine's Postgres and Redis servers (all of them, others' included).
        cpuSeconds: Object.fromEntries(Object.entries(cpuAtEnd).map(([k, v]) => [k, round((v - cpuAtStart[k as keyof typeof cpuAtStart]) / 1000, 1)])),
        id: runId.id, cliExitCode: result.code, wallSeconds: round((endedAt - createdAt) / 1000, 1),
        secondsFromBenchStartToRunCreated: round((createdAt - started) / 1000, 1),
        llmRequests: final.requests, llmAnswered: final.ok, http429: final.rateLimited, serverErrors: final.serverErrors,
      },
      steady: {
        fromS: Math.round(a.t), toS: Math.round(b.t), seconds: round(spanS, 1),
        // Mean over the steady part's 5 s windows of the more used limit in each (at most 1 per window).
        utilisationOfBindingLimit: round(windowUse),
        utilisationUncapped: round(windowUseUncapped),
        // The least it can be: what was used / the sustained rate over the steady part plus a whole minute's bucket.
        utilisationLowerBound: round(Math.max(rpmUse, tpmUse) * spanS / (spanS + 60)),
        windowsBoundBy: { rpm: windows.filter((w) => w.rpm >= w.tpm).length, inputTpm: windows.filter((w) => w.tpm > w.rpm).length },
        // 5 s windows in which the LLM queue ran empty at some second: LLM work starved behind other stages.
        windowsWithLlmQueueEmpty: windows.filter((w) => w.starved).length,
        wholeSteadyPart: { bindingLimit: binding, utilisation: { rpm: round(rpmUse), inputTpm: round(tpmUse) } },
        meanInputTokensPerCall: Math.round((b.inputTokens - a.inputTokens) / Math.max(1, accepted(b) - accepted(a))),
        share429OfRequests: round((b.rateLimited - a.rateLimited) / Math.max(1, b.requests - a.requests)),
        meanLlmCallsInFlight: mean('inFlight'), meanLlmJobsHeld: mean('llmActive'), meanWorkerLlmConcurrency: mean('concurrency'), meanMachineLoad1: mean('load1'),
      },
      whole: {
        share429OfRequests: round(final.rateLimited / Math.max(1, final.requests)),
        // Every HTTP request sent per call answered: 429s and 5xx retries are the extra attempts.
        attemptsPerRequest: round(final.requests / Math.max(1, final.ok)),
      },
      goals: { utilisationOfBindingLimit: '>= 0.90 over the steady part', share429OfRequests: '<= 0.01', attemptsPerRequest: '<= 1.05' },
      timelineEvery5s: timeline(samples, 5),
      note: [
        'Counts are the simulator\'s (/sim/stats, sampled every second). Steady part: from steady.fromS (the burst that the one-minute token buckets of the simulator and of the budget both allow at the start, about 3,000 calls, spent by then) to the last second the stage-llm queue held waiting jobs (then the sweep\'s tail drains).',
        'utilisationOfBindingLimit: per 5 s window of the steady part, calls accepted (answered + 5xx) per second / the RPM limit per second and input tokens accepted per second / the input TPM per second, the larger of the two (the limit binding then), at most 1 (above it the window spends the bucket that limit refilled while the other one bound), averaged over the windows; utilisationUncapped: the same without the cap; utilisationLowerBound: used / (sustained rate x (steady seconds + 60)), as if a full minute of burst had been there to spend; wholeSteadyPart gives both limits over the whole steady part. attemptsPerRequest: HTTP requests / calls answered, whole run.',
        'llmCallsInFlight: calls the simulator is answering; llmJobsHeld: stage-llm jobs active in the workers (loading, waiting for the budget, calling, committing); workerLlmConcurrency: the sum of the workers\' adaptive concurrency.',
      ].join(' '),
      logFile,
      measuredAt: new Date().toISOString(),
    };
    log.end();
    mkdirSync(join(root, 'bench', 'results'), { recursive: true });
    writeFileSync(join(root, 'bench', 'results', 'saturation.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.log(JSON.stringify({ ...out, timelineEvery5s: `${out.timelineEvery5s.length} rows` }, null, 2));
  } finally {
    await stopAll();
    rmSync(join(work, 'data'), { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(e.stack);
  process.exit(1);
});
