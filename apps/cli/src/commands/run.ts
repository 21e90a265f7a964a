import { MultiBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { parseSweepConfig, SweepConfigError } from '@sqlsweep/contracts';
import { leaderboard, readSweepConfigFile, type OrchestratorCore } from '@sqlsweep/orchestration';
import { queueNames } from '@sqlsweep/queue';
import { connectionWarnings } from '@sqlsweep/config';
import { isUnreachableError } from '@sqlsweep/db';
import { cliEnv, openCore } from '../cli-env';
import { spawnWorkers, type LocalProcess } from '../local-processes';
import { renderCost, renderLeaderboard, renderPlan, renderProgress } from '../render';
import { catchStopSignals, InterruptedError, resumeHint, RunNotFinishedError } from '../run-ending';
import { sayPauses } from './models';
import { retryWhileUnreachable, ServiceOutages, watchRedis } from '../service-outages';
import { randomUUID } from 'node:crypto';

export interface RunOptions {
  noCache?: boolean; dryRun?: boolean; resume?: string; workers?: number; progress?: boolean; reconcileAfterMs?: number;
  /** How long Postgres or Redis may stay unreachable while the run is followed before the command gives up. */
  outageLimitMs?: number;
}

/** Where the command's lines go; while progress bars are drawn, they go above the bars. */
interface Say { line: (s: string) => void }

/**
 * Plans (or resumes) a run, drives it to completion with live progress, and returns its id. However it ends, it stops
 * the worker processes it started; once the run exists, an ending other than success throws RunNotFinishedError,
 * whose run id main.ts prints as the command to resume.
 */
export async function runSweep(file: string | undefined, opts: RunOptions, out: (s: string) => void = (s) => process.stdout.write(`${s}\n`)): Promise<string | undefined> {
  const env = cliEnv();
  let config: ReturnType<typeof parseSweepConfig> | undefined;
  if (!opts.resume) {
    if (!file) throw new SweepConfigError('sqlsweep run', '', 'give a sweep config file, or --resume RUN_ID');
    config = parseSweepConfig(await readSweepConfigFile(file), file);
    // A namespace no earlier run used: every LLM stage is asked afresh, every other stage is still reused.
    if (opts.noCache) config = { ...config, cacheNamespace: `no-cache-${randomUUID()}` };
  }
  const core = await openCore(env);
  const workers: LocalProcess[] = [];
  let runId: string | undefined;
  let settled = false;
  // An end that skips the `finally` below (an uncaught exception, a process.exit elsewhere) still stops the workers
  // (they would also notice their IPC channel close) and still says how to resume.
  const onExit = () => {
    for (const w of workers) w.child.kill('SIGTERM');
    if (runId && !settled) process.stderr.write(`${resumeHint(runId)}\n`);
  };
  process.on('exit', onExit);
  const signals = catchStopSignals((signal) => {
    process.stderr.write(`sqlsweep: ${signal} again: killing the local worker processes without waiting for their jobs\n`);
    for (const w of workers) w.child.kill('SIGKILL');
    process.exit(new InterruptedError(signal).exitCode);
  });
  const say: Say = { line: out };
  const outages = new ServiceOutages(opts.outageLimitMs ?? 300_000, (s) => say.line(s));
  const pg = <T>(work: () => Promise<T>) => retryWhileUnreachable(outages, 'postgres', work);
  const following = new AbortController();
  let redisWatch: { close(): void } | undefined;

  const drive = async (): Promise<string | undefined> => {
    if (config && file) {
      const planned = await core.planner.planRun(config, file, { dryRun: opts.dryRun });
      out(renderPlan(planned.plan));
      if (!planned.runId) return undefined;
      runId = planned.runId;
      out(`\nrun ${runId} created`);
    } else {
      const run = await core.runs.getRun(opts.resume!);
      if (!run) throw new SweepConfigError('sqlsweep run --resume', 'runId', `no run ${opts.resume}`);
      runId = opts.resume!;
      out(`resuming run ${runId} (${run.status})`);
    }
    const id = runId;
    redisWatch = watchRedis(env.REDIS_URL, outages);
    // BullMQ reports a lost Redis connection as an 'error' on each queue, printed with its stack unless handled;
    // the watch above says it once instead. Any other queue error is warned about.
    const queueError = (e: unknown) => { if (!isUnreachableError(e)) connectionWarnings().warn('redis', e); };
    for (const name of queueNames) core.queue.queue(name).on('error', queueError);
    core.startAdvancing();
    const { enqueued } = await pg(() => core.advancer.reconcile(id));
    out(`${enqueued} stage jobs ready to run`);
    const wanted = opts.workers ?? ((await core.queue.workerCount('stage-sql')) > 0 ? 0 : 2);
    if (wanted > 0) {
      workers.push(...spawnWorkers(wanted, process.env, { tiedToParent: true }));
      out(`started ${wanted} local worker process(es) (pid ${workers.map((w) => w.child.pid).join(', ')}); they stop when this command ends`);
    }
    // Workers this command started that all die (a crash at start-up, say) would leave the run waiting forever.
    const allDied = workers.length === 0 ? new Promise<never>(() => undefined) : Promise.all(workers.map((w) => new Promise((r) => w.child.once('exit', r))))
      .then(() => { throw new Error('every local worker process exited (see their errors above)'); });
    allDied.catch(() => undefined); // once the run is done, the workers are stopped on purpose
    const followed = { progress: opts.progress ?? process.stdout.isTTY, reconcileAfterMs: opts.reconcileAfterMs ?? 15_000, say, pg, stopped: following.signal };
    await Promise.race([followRun(core, id, followed), allDied]);
    out(renderLeaderboard(await pg(() => leaderboard(core.reports, id))));
    const run = (await pg(() => core.runs.getRun(id)))!;
    out(renderCost(run, await pg(() => core.reports.spend(id))));
    out(`run ${id} ${run.status}: sqlsweep status ${id} shows it again; sqlsweep run --resume ${id} re-checks it`);
    return id;
  };

  let failed = false;
  try {
    return await Promise.race([drive(), signals.interrupted, outages.gaveUp]);
  } catch (e) {
    failed = true;
    throw runId ? new RunNotFinishedError(runId, e) : e;
  } finally {
    settled = true;
    following.abort();
    if (failed && workers.some((w) => w.child.exitCode === null && w.child.signalCode === null)) {
      process.stderr.write(`stopping the local worker processes once their active jobs finish\n`);
    }
    await Promise.all(workers.map((w) => w.stop()));
    signals.dispose();
    redisWatch?.close();
    outages.dispose();
    // Closing waits for Redis and Postgres; after an outage they may not answer, and the command must still end.
    await Promise.race([core.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5_000).unref())]);
    process.off('exit', onExit);
  }
}

/**
 * Polls Postgres until the run is done; if nothing moves for a while, re-plans it (Redis may have lost jobs). The
 * run's status is a key lookup, read every 300 ms; the per-stage progress reads the whole plan, so it is read only as
 * often as it is shown (and the stall check needs it).
 */
interface FollowOptions {
  progress: boolean;
  reconcileAfterMs: number;
  say: Say;
  /** Runs a read against Postgres, again while Postgres is unreachable (see retryWhileUnreachable). */
  pg: <T>(work: () => Promise<T>) => Promise<T>;
  /** Aborted when the command ends some other way: the loop stops too, with the abort as its error. */
  stopped: AbortSignal;
}

async function followRun(core: OrchestratorCore, runId: string, opts: FollowOptions): Promise<void> {
  const bars = opts.progress ? new MultiBar({ format: '{stage} [{bar}] {value}/{total} {failed}', hideCursor: true, clearOnComplete: false }, Presets.shades_classic) : undefined;
  const out = opts.say.line;
  if (bars) opts.say.line = (s) => bars.log(`${s}\n`);
  const barOf = new Map<string, ReturnType<MultiBar['create']>>();
  const progressEveryMs = Math.min(bars ? 1_000 : 5_000, opts.reconcileAfterMs / 2);
  let lastDone = -1;
  let lastChange = Date.now();
  let lastProgress = 0;
  let pausedSaid = '';
  try {
    for (;;) {
      opts.stopped.throwIfAborted(); // the command ends some other way: nothing after following may run
      const run = await opts.pg(() => core.runs.getRun(runId));
      const finished = !run || run.status !== 'running';
      if (finished || Date.now() - lastProgress >= progressEveryMs) {
        lastProgress = Date.now();
        const progress = await opts.pg(() => core.reports.stageProgress(runId));
        if (bars) {
          for (const p of progress) {
            const payload = { stage: p.stage.padEnd(20), failed: p.failed ? `(${p.failed} failed)` : '' };
            const bar = barOf.get(p.stage) ?? bars.create(p.planned, 0, payload);
            barOf.set(p.stage, bar);
            bar.update(p.done + p.failed, payload);
          }
        } else {
          out(renderProgress(progress));
        }
        if (finished) return;
        const done = progress.reduce((n, p) => n + p.done + p.failed, 0);
        if (done === lastDone) pausedSaid = await sayPauses(core, runId, pausedSaid, opts.say.line);
        if (done !== lastDone) {
          lastDone = done;
          lastChange = Date.now();
        } else if (Date.now() - lastChange > opts.reconcileAfterMs) {
          const { enqueued } = await opts.pg(() => core.advancer.reconcile(runId));
          if (enqueued > 0) opts.say.line(`no progress for ${opts.reconcileAfterMs / 1000}s: re-checked ${enqueued} ready stages against the queue (re-adding any Redis lost)`);
          lastChange = Date.now();
        }
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  } finally {
    bars?.stop();
    opts.say.line = out;
  }
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('validate and plan a sweep, run it to completion with live progress, print the leaderboard')
    .argument('[config]', 'sweep config, e.g. configs/sweeps/demo.yaml')
    .option('--dry-run', 'plan only: print variants, stage jobs needed and reused, LLM calls')
    .option('--resume <runId>', 're-plan a stored run from Postgres and finish it (nothing done twice)')
    .option('--workers <n>', 'local worker processes to start (default: 2 when none is connected, else 0)', (v) => parseInt(v, 10))
    .option('--no-progress', 'print progress tables instead of live bars')
    .option('--fresh-llm', 'ask the LLM again for every call (a new cache namespace); other stages are still reused')
    .option('--no-cache', 'the same as --fresh-llm: no LLM answer is taken from the response cache or earlier runs')
    .option('--stall-seconds <s>', 'after this long without progress, re-plan the run from Postgres (default 15)', (v) => parseFloat(v))
    .option('--outage-seconds <s>', 'while following, how long Postgres or Redis may stay unreachable before the command gives up (default 300)', (v) => parseFloat(v))
    .action(async (config: string | undefined, opts: { dryRun?: boolean; resume?: string; workers?: number; progress?: boolean; stallSeconds?: number; outageSeconds?: number; freshLlm?: boolean; cache?: boolean }) => {
      const { stallSeconds, outageSeconds, freshLlm, cache, ...rest } = opts;
      await runSweep(config, {
        ...rest, noCache: freshLlm === true || cache === false, progress: opts.progress === false ? false : undefined,
        reconcileAfterMs: stallSeconds === undefined ? undefined : stallSeconds * 1000,
        outageLimitMs: outageSeconds === undefined ? undefined : outageSeconds * 1000,
      });
    });
}
