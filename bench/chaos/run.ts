/**
 * bench/chaos: a fixed sweep (bench/chaos/sweep.yaml, 480 LLM calls at about 1 s each) on the benchmark's own Redis
 * (AOF) and Postgres, once without faults and once per fault (faults.ts), through real orchestrator, worker and CLI
 * processes. Per fault: items lost, rows duplicated, LLM calls paid twice, seconds of stall after the fault ended,
 * and whether the run needed a manual step (it did when it was not in a terminal state within the deadline: the
 * benchmark never resumes a run itself). Writes bench/results/chaos.json.
 *
 *   npm run bench -- chaos [--only worker-kill,cli-kill] [--deadline-seconds 120] [--workers 2] [--log-level warn]
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { accountRun, createTestDatabase, runCli, type RunningCli } from '@sqlsweep/testing';
import { BASE_SIM, faultFree, faults, type Scenario } from './faults';
import { RunWatch } from './run-watch';
import { ChaosServers } from './servers';
import { ScenarioStack, type SimTotals } from './stack';

const root = resolve(__dirname, '..', '..');
const SWEEP = 'bench/chaos/sweep.yaml';
/** Faults are done once this many LLM calls (a quarter of the sweep) have been answered. */
const TRIGGER_CALLS = 120;
const STALL_LIMIT_SECONDS = 45;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => console.log(`[chaos] ${line}`);

interface Options { deadlineMs: number; workers: number; logLevel: string; servers: ChaosServers; template: string; dataDir: string; logDir: string }

async function until<T>(what: string, deadline: number, probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** The run the CLI created: the scenario's database holds no other. */
function runOf(stack: ScenarioStack, cli: RunningCli): Promise<string> {
  return until('the CLI to create the run', Date.now() + 120_000, async () => {
    if (cli.exited) throw new Error(`sqlsweep run exited before creating the run:\n${cli.stdout}\n${cli.stderr}`);
    return (await stack.db.selectFrom('runs').select('id').executeTakeFirst())?.id;
  }).catch((e: Error) => {
    if (cli.exited) throw new Error(`sqlsweep run exited before creating the run:\n${cli.stdout}\n${cli.stderr}`);
    throw e;
  });
}

function lastLines(text: string, n: number): string[] {
  return text.split('\n').map((l) => l.trimEnd()).filter(Boolean).slice(-n);
}

async function runScenario(scenario: Scenario, o: Options, faultFree?: { answered: number; errored: number }) {
  const loadAtStart = loadavg().map((l) => round(l, 2));
  const log: WriteStream = createWriteStream(join(o.logDir, `${scenario.name}.log`));
  const stack = await ScenarioStack.start({
    postgresUrl: o.servers.postgresUrl, redisUrl: o.servers.redisUrl, template: o.template, dataDir: o.dataDir,
    simConfig: scenario.simConfig, workers: o.workers, logLevel: o.logLevel, onLogLine: (source, line) => log.write(`${source} ${line}\n`),
  });
  try {
    let cli: RunningCli | undefined;
    let runId: string;
    if (scenario.startedBy === 'cli') {
      cli = stack.startCli(SWEEP);
      runId = await runOf(stack, cli);
    } else {
      runId = await stack.createRunThroughApi(readFileSync(join(root, SWEEP), 'utf8'), SWEEP);
    }
    const createdAt = Date.now();
    say(`${scenario.name}: run ${runId} created (${scenario.startedBy})`);
    const watch = new RunWatch(stack.db, runId);
    let seen: Record<string, number> = {};
    let faultStartedAt = createdAt;
    let faultEndedAt = createdAt;
    let inFlightAtFault: number | undefined;
    try {
      if (scenario.inject) {
        const atTrigger = await until(`${TRIGGER_CALLS} LLM calls answered`, Date.now() + 180_000, async () => {
          if (watch.endedAt) throw new Error('the run ended before the fault could be done');
          const t = await stack.simTotals();
          return t.ok >= TRIGGER_CALLS && t.inFlight > 0 ? t : undefined;
        });
        inFlightAtFault = atTrigger.inFlight;
        faultStartedAt = Date.now();
        say(`${scenario.name}: fault at ${atTrigger.ok} calls answered, ${atTrigger.inFlight} in flight`);
        seen = await scenario.inject({ stack, servers: o.servers, cli });
        faultEndedAt = Date.now();
        say(`${scenario.name}: fault over after ${((faultEndedAt - faultStartedAt) / 1000).toFixed(1)} s ${JSON.stringify(seen)}`);
      }
      const deadline = faultEndedAt + o.deadlineMs;
      const ended = await watch.untilTerminal(deadline);
      say(`${scenario.name}: ${ended ? `run ${watch.status} ${((watch.endedAt! - createdAt) / 1000).toFixed(1)} s after it was created` : `run still ${watch.status} ${o.deadlineMs / 1000} s after the fault ended: a manual step is needed`}`);
      await watch.stop();
      const stall = watch.longestStallSeconds(faultEndedAt, deadline);
      // The CLI prints the leaderboard once the run has ended; then it should exit.
      if (cli && !cli.exited && ended) await Promise.race([cli.finished, sleep(30_000)]);
      await sleep(2_000); // calls still in flight reach the simulator's counts
      const sim = await stack.simTotals();
      const account = await accountRun(stack.db, runId);
      const extraCalls = sim.ok - account.storedLlmAnswers;
      const allowed = scenario.extraCallsAllowed(seen, sim);
      const itemsLost = ended ? account.itemsPlanned - account.itemsWithResult : null;
      const misses = [
        ...(ended ? [] : [`not in a terminal state ${o.deadlineMs / 1000} s after the fault ended (a manual step needed)`]),
        ...(itemsLost ? [`${itemsLost} items lost`] : []),
        ...(account.duplicatedRows ? [`${account.duplicatedRows} duplicated rows`] : []),
        ...(stall > STALL_LIMIT_SECONDS ? [`stalled ${stall} s`] : []),
        ...(extraCalls > allowed ? [`${extraCalls} LLM calls paid twice, ${allowed} allowed`] : []),
      ];
      return {
        fault: scenario.name,
        description: scenario.description,
        startedBy: scenario.startedBy,
        runStatus: account.status,
        terminal: ended,
        manualStepNeeded: !ended,
        itemsPlanned: account.itemsPlanned,
        itemsLost,
        itemsWithoutResult: account.itemsPlanned - account.itemsWithResult,
        itemsErrored: account.itemsErrored,
        duplicatedRows: account.duplicatedRows,
        stageFailures: account.stageFailures,
        llmCalls: llmCallsOf(sim),
        storedLlmAnswers: account.storedLlmAnswers,
        extraLlmCalls: extraCalls,
        extraLlmCallsAllowed: allowed,
        extraLlmCallsVsFaultFree: !faultFree || scenario.simConfig !== BASE_SIM ? null : sim.ok - faultFree.answered,
        llmCallsInFlightAtFault: inFlightAtFault ?? null,
        seenAtFault: seen,
        faultSeconds: round((faultEndedAt - faultStartedAt) / 1000),
        stallSecondsAfterFault: stall,
        runSeconds: round(((watch.endedAt ?? Date.now()) - createdAt) / 1000),
        cli: cli ? cliOutcome(cli) : null,
        loadAverage: { atStart: loadAtStart, atEnd: loadavg().map((l) => round(l, 2)) },
        meetsDoneWhen: misses.length === 0,
        misses,
        // Not a done-when criterion: a transient fault that turns an item into a recorded error has changed the results.
        warnings: faultFree && !scenario.errorsItems && account.itemsErrored > faultFree.errored
          ? [`${account.itemsErrored - faultFree.errored} more items errored than in the fault-free run`] : [],
      };
    } finally {
      await watch.stop();
    }
  } finally {
    await stack.stop();
    await o.servers.flushRedis().catch(() => undefined);
    log.end();
  }
}

function llmCallsOf(sim: SimTotals) {
  return { requests: sim.requests, answered: sim.ok, serverErrors: sim.serverErrors, badRequests: sim.badRequests, abandoned: sim.abandoned, rateLimited: sim.rateLimited };
}

function cliOutcome(cli: RunningCli) {
  const code = cli.child.exitCode;
  const output = `${cli.stdout}\n${cli.stderr}`;
  return {
    exited: cli.exited, exitCode: code, signal: cli.child.signalCode,
    namesResumeCommand: /sqlsweep run --resume/.test(output),
    lastLines: lastLines(output, 4),
  };
}

const round = (x: number, digits = 1) => Number(x.toFixed(digits));

function commitOf(): { commit: string; uncommittedChanges: boolean } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  return { commit: git('rev-parse', '--short', 'HEAD'), uncommittedChanges: git('status', '--porcelain', '--untracked-files=no') !== '' };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, 'deadline-seconds': { type: 'string', default: '120' }, workers: { type: 'string', default: '2' }, 'log-level': { type: 'string', default: 'warn' } } });
  const only = values.only?.split(',');
  const unknown = only?.filter((n) => !faults.some((f) => f.name === n));
  if (unknown?.length) throw new Error(`--only: no fault ${unknown.join(', ')} (faults: ${faults.map((f) => f.name).join(', ')})`);
  const started = Date.now();
  const servers = await ChaosServers.start(say);
  say(`own Redis on port ${servers.redisPort}, own Postgres on port ${servers.postgresPort}`);
  let stopping = false;
  const stopServers = async () => {
    if (stopping) return;
    stopping = true;
    await servers.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopServers().finally(() => process.exit(130)));
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlsweep-chaos-data-'));
  try {
    const logDir = mkdtempSync(join(tmpdir(), 'sqlsweep-chaos-logs-'));
    // The template every scenario's database is copied from: migrated, minibench registered once.
    const template = await createTestDatabase(servers.postgresUrl);
    await template.db.destroy();
    const added = await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], {
      DATABASE_URL: template.url, REDIS_URL: servers.redisUrl, SQLSWEEP_QUEUE_PREFIX: 'chaos_template', SQLSWEEP_DATA_DIR: dataDir,
    });
    if (added.code !== 0) throw new Error(`datasets add failed:\n${added.stdout}\n${added.stderr}`);
    const o: Options = { deadlineMs: Number(values['deadline-seconds']) * 1000, workers: Number(values.workers), logLevel: values['log-level'], servers, template: template.name, dataDir, logDir };
    say(`scenario logs in ${logDir}`);

    const baseline = await runScenario(faultFree, o);
    const results = [];
    for (const scenario of faults.filter((f) => !only || only.includes(f.name))) {
      results.push(await runScenario(scenario, o, { answered: baseline.llmCalls.answered, errored: baseline.itemsErrored }));
      say(`${scenario.name}: ${results.at(-1)!.meetsDoneWhen ? 'meets the done-when criteria' : `misses: ${results.at(-1)!.misses.join('; ')}`}`);
    }
    const result = {
      benchmark: 'chaos',
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: loadavg().map((l) => round(l, 2)) },
      ...commitOf(),
      sweep: { config: SWEEP, items: baseline.itemsPlanned, llmCalls: baseline.llmCalls.answered, simulatedLatency: 'median 1 s, p95 1.3 s (bench/chaos/llm-sim-1s.yaml)' },
      settings: {
        workers: o.workers, llmConcurrencyPerWorker: 16, jobLockSeconds: 30, faultAfterLlmCallsAnswered: TRIGGER_CALLS,
        deadlineSecondsAfterFault: o.deadlineMs / 1000, stallLimitSeconds: STALL_LIMIT_SECONDS,
      },
      allFaultsMeetDoneWhen: results.every((r) => r.meetsDoneWhen),
      faultFree: baseline,
      faults: results,
      wallSeconds: round((Date.now() - started) / 1000),
      note: [
        'Each scenario: a fresh database copied from a template (migrated, minibench registered), its own BullMQ prefix, the LLM simulator, the orchestrator and two worker processes, all started as production starts them, on the benchmark\'s own Redis (AOF) and Postgres.',
        'itemsLost: (variant, item) pairs of the plan with no item result (correct, wrong or a recorded error) once the run is in a terminal state; null when it never got there. duplicatedRows: rows beyond one per key in item_results, stage_results, stage_failures and run_summaries.',
        'llmCalls are counted at the simulator: answered = calls answered 200 (what a provider bills; abandoned ones, answered after their caller died, included). extraLlmCalls = answered - distinct answers stored in the response cache: calls paid more than once. extraLlmCallsAllowed: for a worker kill, the calls in flight at the killed worker (its LLM call claims, taken just before the kill: asked and not yet stored), else 0.',
        'stallSecondsAfterFault: the longest time without a stage result, stage failure or item result stored, from the end of the fault (the run\'s creation for provider faults) until the run ended (or the deadline). manualStepNeeded: the run was not done, failed or cancelled within deadlineSecondsAfterFault; the benchmark never resumes a run.',
        'warnings (not a done-when criterion): more items errored than in the fault-free run under a fault that should only cost time (a stage job that used all its attempts on transient errors).',
      ].join(' '),
      measuredAt: new Date().toISOString(),
    };
    mkdirSync(join(root, 'bench', 'results'), { recursive: true });
    writeFileSync(join(root, 'bench', 'results', 'chaos.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await stopServers();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(e.stack);
  process.exit(1);
});
