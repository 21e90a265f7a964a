import type { SandboxPool } from './sandbox-pool';

export interface VesTimingOptions {
  /** Timed runs of each query (BIRD's evaluation_ves.py uses 100). */
  repeats: number;
  /** Deadline of each query's batch of runs (the pool's default when left out). */
  deadlineMs?: number;
}

/** Per-run times of the two queries, `repeats` of each, paired by index for `vesReward`. */
export interface VesTimings { goldMs: number[]; predMs: number[] }

/**
 * The one VES timing procedure, used by the sweep's evaluate stage and by `sqlsweep eval --metric ves`.
 *
 * BIRD's evaluation_ves.py (`iterated_execute_sql`) first runs the prediction and then the gold once, untimed, to
 * compare their results; only then does it time them, the prediction before the gold in every iteration. So
 * neither query is timed cold, and the prediction goes first. Here each query gets one untimed warm-up run (that
 * comparison run) and then `repeats` timed runs, the prediction's batch before the gold's. Each batch runs back to
 * back in one sandbox child on one connection: a pool call per run would land the two queries on different children
 * with different page caches, noise that the official script, timing both in one process, does not have.
 *
 * Returns undefined when either query fails or times out on re-run (the caller scores such an item 0).
 */
export async function timeForVes(
  pool: Pick<SandboxPool, 'execute'>,
  dbPath: string,
  goldSql: string,
  predSql: string,
  opts: VesTimingOptions,
): Promise<VesTimings | undefined> {
  const timedRuns = async (sql: string): Promise<number[] | undefined> => {
    const run = await pool.execute({ dbPath, sql, deadlineMs: opts.deadlineMs, repeat: opts.repeats + 1 });
    return run.status === 'ok' && run.timingsMs ? run.timingsMs.slice(1) : undefined;
  };
  const predMs = await timedRuns(predSql);
  if (!predMs) return undefined;
  const goldMs = await timedRuns(goldSql);
  return goldMs ? { goldMs, predMs } : undefined;
}
