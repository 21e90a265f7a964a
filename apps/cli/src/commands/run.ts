import { readFile } from 'node:fs/promises';
import { MultiBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { parseSweepConfig, SweepConfigError } from '@sqlsweep/contracts';
import type { OrchestratorCore } from '@sqlsweep/orchestration';
import { cliEnv, openCore } from '../cli-env';
import { spawnWorkers, type LocalProcess } from '../local-processes';
import { renderCost, renderLeaderboard, renderPlan, renderProgress } from '../render';
import { randomUUID } from 'node:crypto';

export interface RunOptions { noCache?: boolean; dryRun?: boolean; resume?: string; workers?: number; progress?: boolean; reconcileAfterMs?: number }

/** Plans (or resumes) a run, drives it to completion with live progress, and returns its id. */
export async function runSweep(file: string | undefined, opts: RunOptions, out: (s: string) => void = (s) => process.stdout.write(`${s}\n`)): Promise<string | undefined> {
  const env = cliEnv();
  let config;
  if (!opts.resume) {
    if (!file) throw new SweepConfigError('sqlsweep run', '', 'give a sweep config file, or --resume RUN_ID');
    const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new SweepConfigError(file, '', e.code === 'ENOENT' ? 'file not found' : e.message);
    });
    config = parseSweepConfig(text, file);
    // A namespace no earlier run used: every LLM stage is asked afresh, every other stage is still reused.
    if (opts.noCache) config = { ...config, cacheNamespace: `no-cache-${randomUUID()}` };
  }
  const core = await openCore(env);
  const workers: LocalProcess[] = [];
  try {
    let runId: string;
    if (config && file) {
      const plan = await core.planner.plan(config, file);
      out(renderPlan(plan));
      if (opts.dryRun) return undefined;
      runId = await core.planner.createRun(plan);
      out(`\nrun ${runId} created`);
    } else {
      runId = opts.resume!;
      const run = await core.runs.getRun(runId);
      if (!run) throw new SweepConfigError('sqlsweep run --resume', 'runId', `no run ${runId}`);
      out(`resuming run ${runId} (${run.status})`);
    }
    core.startAdvancing();
    const { enqueued } = await core.advancer.reconcile(runId);
    out(`${enqueued} stage jobs ready to run`);
    const wanted = opts.workers ?? ((await core.queue.workerCount('stage-sql')) > 0 ? 0 : 2);
    if (wanted > 0) {
      out(`starting ${wanted} local worker process(es)`);
      workers.push(...spawnWorkers(wanted, process.env));
    }
    // Workers this command started that all die (a crash at start-up, say) would leave the run waiting forever.
    const allDied = workers.length === 0 ? new Promise<never>(() => undefined) : Promise.all(workers.map((w) => new Promise((r) => w.child.once('exit', r))))
      .then(() => { throw new Error(`every local worker process exited (see their errors above); the run can be finished with: sqlsweep run --resume ${runId}`); });
    allDied.catch(() => undefined); // once the run is done, the workers are stopped on purpose
    await Promise.race([followRun(core, runId, { progress: opts.progress ?? process.stdout.isTTY, reconcileAfterMs: opts.reconcileAfterMs ?? 15_000, out }), allDied]);
    out(renderLeaderboard(await core.runs.leaderboard(runId)));
    out(renderCost((await core.runs.getRun(runId))!, await core.runs.spend(runId)));
    return runId;
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await core.close();
    void env;
  }
}

/**
 * Polls Postgres until the run is done; if nothing moves for a while, re-plans it (Redis may have lost jobs). The
 * run's status is a key lookup, read every 300 ms; the per-stage progress reads the whole plan, so it is read only as
 * often as it is shown (and the stall check needs it).
 */
async function followRun(core: OrchestratorCore, runId: string, opts: { progress: boolean; reconcileAfterMs: number; out: (s: string) => void }): Promise<void> {
  const bars = opts.progress ? new MultiBar({ format: '{stage} [{bar}] {value}/{total} {failed}', hideCursor: true, clearOnComplete: false }, Presets.shades_classic) : undefined;
  const barOf = new Map<string, ReturnType<MultiBar['create']>>();
  const progressEveryMs = Math.min(bars ? 1_000 : 5_000, opts.reconcileAfterMs / 2);
  let lastDone = -1;
  let lastChange = Date.now();
  let lastProgress = 0;
  try {
    for (;;) {
      const run = await core.runs.getRun(runId);
      const finished = !run || run.status !== 'running';
      if (finished || Date.now() - lastProgress >= progressEveryMs) {
        lastProgress = Date.now();
        const progress = await core.runs.stageProgress(runId);
        if (bars) {
          for (const p of progress) {
            const payload = { stage: p.stage.padEnd(20), failed: p.failed ? `(${p.failed} failed)` : '' };
            const bar = barOf.get(p.stage) ?? bars.create(p.planned, 0, payload);
            barOf.set(p.stage, bar);
            bar.update(p.done + p.failed, payload);
          }
        } else {
          opts.out(renderProgress(progress));
        }
        if (finished) return;
        const done = progress.reduce((n, p) => n + p.done + p.failed, 0);
        if (done !== lastDone) {
          lastDone = done;
          lastChange = Date.now();
        } else if (Date.now() - lastChange > opts.reconcileAfterMs) {
          const { enqueued } = await core.advancer.reconcile(runId);
          if (enqueued > 0) opts.out(`no progress for ${opts.reconcileAfterMs / 1000}s: re-checked ${enqueued} ready stages against the queue (re-adding any Redis lost)`);
          lastChange = Date.now();
        }
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  } finally {
    bars?.stop();
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
    .action(async (config: string | undefined, opts: { dryRun?: boolean; resume?: string; workers?: number; progress?: boolean; stallSeconds?: number; freshLlm?: boolean; cache?: boolean }) => {
      const { stallSeconds, freshLlm, cache, ...rest } = opts;
      await runSweep(config, { ...rest, noCache: freshLlm === true || cache === false, progress: opts.progress === false ? false : undefined, reconcileAfterMs: stallSeconds === undefined ? undefined : stallSeconds * 1000 });
    });
}
