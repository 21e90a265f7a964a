import { compareExecution, type BirdRowSemantics, type EvalSemantics } from './compare-execution';
import type { ExecutionResult } from './execution-result';
import type { GoldResultStore } from './gold-cache';
import { machineLabel } from './machine';
import type { SandboxPool } from './sandbox-pool';
import { executeOnScratchCopy, refusedAsWrite } from './scratch-write';
import { spiderPrepare, spiderPrepareGold } from './spider-prepare';
import { lexSql } from './sql-lexer';

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
  /**
   * Set when this verdict may differ from the official script's, with the reason (a statement the sandbox refuses
   * that the official script would run). Never set when sqlsweep reproduces the official behaviour.
   */
  divergent?: string;
}

export interface EvaluateExecutionOptions {
  semantics: EvalSemantics;
  pool: SandboxPool;
  items: EvalItem[];
  goldCache?: GoldResultStore;
  versionHash?: string;
  deadlineMs?: number;
  /** BIRD only: how rows are compared (default `set`, DAMO's evaluation.py). */
  birdRows?: BirdRowSemantics;
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

/** True when the text holds no statement at all (only whitespace, comments and semicolons). */
export function isEmptyStatement(sql: string): boolean {
  return lexSql(sql).every((t) => t.kind === 'space' || t.kind === 'comment' || (t.kind === 'other' && t.text === ';'));
}

export interface PredictionRun {
  result: ExecutionResult;
  /** How the result was obtained when not by the sandbox as usual; appended to the verdict's reason. */
  note?: string;
  divergent?: string;
}

export interface PredictionRequest {
  semantics: EvalSemantics;
  pool: SandboxPool;
  dbPath: string;
  /** The prediction as given; the official rewrites (Spider's first statement ...) are applied here. */
  predSql: string;
  deadlineMs?: number;
}

/**
 * Runs a prediction as the official script would. BIRD: an empty statement (mini-dev turns a non-string into " ")
 * is an empty result, as Python's `cursor.execute(" ")` gives. Both: a statement refused only because it writes
 * runs on a throw-away in-memory copy (the official scripts run it on the database file); a refusal the official
 * script would not make (ATTACH, PRAGMA, over-long text ...) is kept and reported as divergent.
 */
export async function runPrediction(req: PredictionRequest): Promise<PredictionRun> {
  const sql = officialSql(req.semantics, 'pred', req.predSql);
  if (req.semantics === 'bird' && isEmptyStatement(sql)) {
    return { result: { status: 'ok', columns: [], rows: [], truncated: false, elapsedMs: 0 }, note: 'empty prediction: no statement, an empty result as in Python' };
  }
  const { timingsMs: _unused, ...result } = await req.pool.execute({ dbPath: req.dbPath, sql, deadlineMs: req.deadlineMs });
  if (refusedAsWrite(result)) {
    const scratch = await executeOnScratchCopy(req.dbPath, sql, { deadlineMs: req.deadlineMs ?? 30_000 });
    if (scratch) return { result: scratch, note: 'write statement run on a throw-away in-memory copy' };
    return { result, divergent: 'write statement not run: the database is too large to copy into memory; the official script would run it' };
  }
  if (result.status === 'error' && result.errorKind === 'gate' && !/more than one statement|NUL character/.test(result.message)) {
    return { result, divergent: `refused by the sandbox (${result.message}); the official script would run it` };
  }
  return { result };
}

/** The verdict on a prediction already run, against the gold result, with the prediction's note and divergence. */
export function judgePrediction(
  semantics: EvalSemantics, goldSql: string, gold: ExecutionResult, pred: PredictionRun, birdRows?: BirdRowSemantics,
): { correct: boolean; reason: string; divergent?: string } {
  const verdict = compareExecution(semantics, gold, pred.result, { goldSql: officialSql(semantics, 'gold', goldSql), birdRows });
  const reason = pred.note ? `${verdict.reason} (${pred.note})` : verdict.reason;
  return { correct: verdict.correct, reason, ...(pred.divergent ? { divergent: pred.divergent } : {}) };
}

/** Runs every gold (once per version and item when cached) and prediction in the pool and gives each a verdict. */
export async function evaluateExecution(opts: EvaluateExecutionOptions): Promise<ItemVerdict[]> {
  return Promise.all(
    opts.items.map(async (item) => {
      const [gold, pred] = await Promise.all([
        evaluateGold({ ...opts, item }),
        runPrediction({ semantics: opts.semantics, pool: opts.pool, dbPath: item.dbPath, predSql: item.predSql, deadlineMs: opts.deadlineMs }),
      ]);
      const verdict = judgePrediction(opts.semantics, item.goldSql, gold.result, pred, opts.birdRows);
      return { ...verdict, gold: gold.result, pred: pred.result, goldCached: gold.cached };
    }),
  );
}
