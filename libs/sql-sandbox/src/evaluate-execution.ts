import { compareExecution, type EvalSemantics } from './compare-execution';
import type { ExecutionResult } from './execution-result';
import type { GoldResultStore } from './gold-cache';
import { machineLabel } from './machine';
import type { SandboxPool } from './sandbox-pool';
import { spiderPrepare, spiderPrepareGold } from './spider-prepare';

export interface EvalItem {
  dbPath: string;
  goldSql: string;
  predSql: string;
  /** Stable item id within the dataset version; with `versionHash` it keys the gold cache. */
  itemId?: string;
}

export interface ItemVerdict {
  correct: boolean;
  reason: string;
  gold: ExecutionResult;
  pred: ExecutionResult;
  goldCached: boolean;
}

export interface EvaluateExecutionOptions {
  semantics: EvalSemantics;
  pool: SandboxPool;
  items: EvalItem[];
  goldCache?: GoldResultStore;
  versionHash?: string;
  deadlineMs?: number;
}

/** The SQL the official script actually runs (Spider's rewrites; BIRD runs both queries verbatim). */
export function officialSql(semantics: EvalSemantics, which: 'gold' | 'pred', sql: string): string {
  if (semantics === 'bird') return sql;
  return which === 'gold' ? spiderPrepareGold(sql) : spiderPrepare(sql);
}

export interface EvaluateGoldOptions {
  semantics: EvalSemantics;
  pool: SandboxPool;
  item: Pick<EvalItem, 'dbPath' | 'goldSql' | 'itemId'>;
  goldCache?: GoldResultStore;
  versionHash?: string;
  deadlineMs?: number;
}

/** The gold result of one item: from the cache when (versionHash, itemId) is there, else run once and stored. */
export async function evaluateGold(opts: EvaluateGoldOptions): Promise<{ result: ExecutionResult; cached: boolean }> {
  const item = opts.item;
  const cacheable = opts.goldCache && opts.versionHash !== undefined && item.itemId !== undefined;
  if (cacheable) {
    const hit = opts.goldCache!.get(opts.versionHash!, item.itemId!);
    if (hit) return { result: hit.result, cached: true };
  }
  const { timingsMs: _unused, ...result } = await opts.pool.execute({
    dbPath: item.dbPath,
    sql: officialSql(opts.semantics, 'gold', item.goldSql),
    deadlineMs: opts.deadlineMs,
  });
  // Timeouts are not cached: on another run (or machine) the gold may finish.
  if (cacheable && result.status !== 'timeout') {
    opts.goldCache!.set(opts.versionHash!, item.itemId!, { result, machine: machineLabel() });
  }
  return { result, cached: false };
}

/**
 * Repeated timings of an item's gold query for VES, cached beside its result per (version, item) and reused only
 * when they were measured on this machine and there are at least `repeat` of them.
 */
export async function timeGold(opts: EvaluateGoldOptions & { repeat: number }): Promise<number[] | undefined> {
  const item = opts.item;
  const cacheable = opts.goldCache && opts.versionHash !== undefined && item.itemId !== undefined;
  const machine = machineLabel();
  const hit = cacheable ? opts.goldCache!.get(opts.versionHash!, item.itemId!) : undefined;
  if (hit?.timingsMs && hit.machine === machine && hit.timingsMs.length >= opts.repeat) return hit.timingsMs.slice(0, opts.repeat);
  const { timingsMs, ...result } = await opts.pool.execute({
    dbPath: item.dbPath,
    sql: officialSql(opts.semantics, 'gold', item.goldSql),
    deadlineMs: opts.deadlineMs,
    repeat: opts.repeat,
  });
  if (result.status !== 'ok' || !timingsMs) return undefined;
  if (cacheable) opts.goldCache!.set(opts.versionHash!, item.itemId!, { result, machine, timingsMs });
  return timingsMs;
}

/** Runs every gold (once per version and item when cached) and prediction in the pool and gives each a verdict. */
export async function evaluateExecution(opts: EvaluateExecutionOptions): Promise<ItemVerdict[]> {
  return Promise.all(
    opts.items.map(async (item) => {
      const [gold, pred] = await Promise.all([
        evaluateGold({ ...opts, item }),
        opts.pool.execute({ dbPath: item.dbPath, sql: officialSql(opts.semantics, 'pred', item.predSql), deadlineMs: opts.deadlineMs }),
      ]);
      const { timingsMs: _unused, ...predResult } = pred;
      const verdict = compareExecution(opts.semantics, gold.result, predResult, { goldSql: officialSql(opts.semantics, 'gold', item.goldSql) });
      return { ...verdict, gold: gold.result, pred: predResult, goldCached: gold.cached };
    }),
  );
}
