import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command } from 'commander';
import { parseSpiderSql, spiderHardness } from '@sqlsweep/datasets';
import {
  SandboxPool,
  SCORERS,
  birdSummaryTable,
  birdKeysOutOfPlace,
  breakdown,
  defaultScorer,
  evaluateExecution,
  findScorer,
  machineLabel,
  officialSql,
  readBirdPredictions,
  readGoldFile,
  readSpiderPredictions,
  softF1,
  spiderSummaryTable,
  timeForVes,
  vesReward,
  type ExecutionResult,
  type ItemVerdict,
  type Scorer,
} from '@sqlsweep/sql-sandbox';

export interface EvalCommandOptions {
  format: 'spider' | 'bird';
  dbDir: string;
  gold: string;
  pred: string;
  metric: 'ex' | 'ves' | 'soft-f1';
  out?: string;
  /** BIRD only: dev.json giving each item's difficulty; default: dev.json beside --gold. Spider grades hardness itself. */
  questions?: string;
  workers?: number;
  timeoutMs: number;
  vesIterations: number;
  /** A named scorer (`bird-ex-bag`, `spider-ex@2` ...); default: the format's official one for the metric. */
  scorer?: string;
}

export interface EvalItemLine {
  i: number;
  db_id: string;
  /** Spider hardness or BIRD difficulty; null with `level_note` saying why when it is not known. */
  level: string | null;
  level_note?: string;
  /** The scorer that produced `exec` and `score` (`name@version`). */
  scorer: string;
  exec: 0 | 1;
  score: number;
  reason: string;
  pred_status: ExecutionResult['status'];
  pred_error_kind?: string;
  pred_message?: string;
  gold_status: ExecutionResult['status'];
  time_ratio?: number;
  /** VES only: the machine the timings were measured on. */
  machine?: string;
  /** Soft-F1 with a set-order release: the official value depends on Python's hash seed for this item. */
  order_dependent?: boolean;
  /** Why this verdict may differ from the official script's (absent when it reproduces it). */
  divergent?: string;
}

export interface EvalSummary {
  metric: EvalCommandOptions['metric'];
  scorer: Scorer;
  items: EvalItemLine[];
  table: string;
  machine: string;
  /** Items flagged `divergent`, and (Soft-F1) items whose official value depends on Python's set order. */
  divergentCount: number;
  orderDependentCount: number;
  /** One-line notices that are not warnings about the data (e.g. why there is no difficulty breakdown). */
  notices: string[];
  /** Items whose gold the Spider hardness parser could not read (the official script would stop there). */
  warnings: string[];
}

const SPIDER_LEVELS = ['easy', 'medium', 'hard', 'extra'];
const SCORER_IDS = SCORERS.map((s) => s.id);
const BIRD_LEVELS = ['simple', 'moderate', 'challenging'];

/** Spider hardness graded from each gold query, as the official evaluator does (process_sql + eval_hardness). */
function spiderLevels(gold: Array<{ sql: string }>, warnings: string[]): Array<string | undefined> {
  return gold.map((g, i) => {
    try {
      return spiderHardness(parseSpiderSql(g.sql));
    } catch (err) {
      warnings.push(`gold line ${i + 1}: no hardness: ${(err as Error).message}`);
      return undefined;
    }
  });
}

/**
 * Each item's BIRD difficulty from the questions file. An explicit --questions that cannot be read is an error;
 * a missing default dev.json, or questions without `difficulty`, give a notice and no breakdown (never a row of
 * zeros that reads as 0 % accuracy).
 */
function birdLevels(opts: EvalCommandOptions, count: number, notices: string[]): { levels: Array<string | undefined>; note?: string } {
  const none = (note: string) => {
    notices.push(`no difficulty breakdown: ${note}`);
    return { levels: new Array<undefined>(count).fill(undefined), note };
  };
  const file = opts.questions ?? join(dirname(opts.gold), 'dev.json');
  if (!existsSync(file)) {
    if (opts.questions !== undefined) throw new Error(`--questions ${file}: no such file`);
    return none(`${file} not found (give --questions dev.json)`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not a JSON array of questions: ${(err as Error).message}`);
  }
  if (!Array.isArray(raw) || raw.length !== count) {
    throw new Error(`${file}: ${Array.isArray(raw) ? raw.length : 'no'} questions, but ${opts.gold} has ${count} gold queries`);
  }
  const levels = (raw as Array<Record<string, unknown>>).map((q) => (typeof q?.difficulty === 'string' ? q.difficulty : undefined));
  const missing = levels.filter((l) => l === undefined).length;
  if (missing === count) return none(`${file} has no "difficulty" field`);
  if (missing > 0) notices.push(`${file}: ${missing} question(s) without "difficulty", counted in the total only`);
  return { levels, note: missing > 0 ? `no "difficulty" in ${file}` : undefined };
}

function databasePath(dbDir: string, dbId: string): string {
  const path = join(dbDir, dbId, `${dbId}.sqlite`);
  if (!existsSync(path)) throw new Error(`${path}: database of db_id ${dbId} not found under --db-dir`);
  return path;
}

/** The scorer the options name, checked against the format and metric. */
export function resolveScorer(opts: Pick<EvalCommandOptions, 'format' | 'metric' | 'scorer'>): Scorer {
  if (opts.scorer === undefined) return defaultScorer(opts.format, opts.metric);
  const scorer = findScorer(opts.scorer);
  if (scorer.format !== opts.format) throw new Error(`--scorer ${scorer.id} scores --format ${scorer.format}, not ${opts.format}`);
  const wanted = opts.metric === 'ves' ? 'ex' : opts.metric;
  if (scorer.metric !== wanted && !(opts.metric === 'ex' && scorer.metric === 'soft-f1')) {
    throw new Error(`--scorer ${scorer.id} gives ${scorer.metric}, not ${opts.metric}`);
  }
  return scorer;
}

/**
 * Scores a prediction file against a gold file the way the official script for the format does. `sharedPool`: a
 * sandbox pool to run in instead of starting one of `opts.workers` (left open), for callers scoring many files.
 */
export async function runEval(opts: EvalCommandOptions, sharedPool?: SandboxPool): Promise<EvalSummary> {
  const scorer = resolveScorer(opts);
  const metric: EvalCommandOptions['metric'] = opts.metric === 'ves' ? 'ves' : scorer.metric;
  const gold = readGoldFile(opts.gold);
  const preds =
    opts.format === 'spider' ? readSpiderPredictions(opts.pred).map((sql) => ({ sql, dbId: undefined })) : readBirdPredictions(opts.pred);
  if (preds.length !== gold.length) {
    throw new Error(`${opts.pred} has ${preds.length} predictions but ${opts.gold} has ${gold.length} gold queries; refusing to pair them by position`);
  }
  const warnings: string[] = [];
  const notices: string[] = [];
  const graded = opts.format === 'spider' ? { levels: spiderLevels(gold, warnings), note: 'the Spider hardness parser cannot read the gold' } : birdLevels(opts, gold.length, notices);
  const levels = graded.levels;
  // BIRD's script runs both queries on the database named by the prediction line.
  const dbIds = gold.map((g, i) => (opts.format === 'bird' ? (preds[i].dbId ?? g.dbId) : g.dbId));
  dbIds.forEach((id, i) => {
    if (id !== gold[i].dbId) warnings.push(`item ${i}: prediction names db ${id}, gold names ${gold[i].dbId}; running on ${id} as BIRD's script does`);
  });
  const dbPaths = dbIds.map((id) => databasePath(opts.dbDir, id));
  const outOfPlace = new Map<number, number>();
  if (opts.format === 'bird') {
    for (const { key, position } of birdKeysOutOfPlace(opts.pred)) outOfPlace.set(key, position);
    if (outOfPlace.size > 0) {
      warnings.push(`${opts.pred}: ${outOfPlace.size} key(s) not in gold order; paired by key here, by position in the official script (marked divergent)`);
    }
  }
  const pool = sharedPool ?? new SandboxPool({ size: opts.workers, deadlineMs: opts.timeoutMs });
  try {
    const verdicts = await judgeAll(opts, scorer, pool, gold, preds, dbPaths);
    const items = await Promise.all(
      verdicts.map(async (v, i) => {
        const line = itemLine(i, dbIds[i], levels[i], graded.note, scorer, v);
        if (outOfPlace.has(i)) {
          line.divergent = `prediction key "${i}" is entry ${outOfPlace.get(i)} of the file: the official script pairs it with gold line ${outOfPlace.get(i)! + 1}`;
        }
        if (metric === 'soft-f1') {
          const f1 = v.gold.status === 'ok' && v.pred.status === 'ok' ? softF1(v.pred.rows, v.gold.rows, scorer.softF1) : undefined;
          line.score = f1?.score ?? 0;
          if (f1?.orderDependent) line.order_dependent = true;
        } else if (metric === 'ves') {
          const timing = v.correct ? await vesOf(pool, opts, dbPaths[i], gold[i].sql, preds[i].sql) : { reward: 0, timeRatio: 0 };
          line.score = timing.reward;
          line.time_ratio = timing.timeRatio;
          line.machine = machineLabel();
        }
        return line;
      }),
    );
    return {
      metric,
      scorer,
      items,
      table: summaryTable(opts.format, metric, items),
      machine: machineLabel(),
      warnings,
      notices,
      divergentCount: items.filter((it) => it.divergent).length,
      orderDependentCount: items.filter((it) => it.order_dependent).length,
    };
  } finally {
    if (!sharedPool) await pool.close();
  }
}

/**
 * Spider's official exec check runs both queries on every file with ".sqlite" in its name in the database's folder
 * (one file for Spider itself, a suite of variants for test-suite accuracy) and needs all to match. BIRD uses the
 * one database.
 */
function databaseSuite(scorer: Scorer, dbPath: string): string[] {
  if (scorer.databases === 'original') return [dbPath];
  const dir = dirname(dbPath);
  return readdirSync(dir)
    .filter((name) => name.includes('.sqlite'))
    .sort()
    .map((name) => join(dir, name));
}

async function judgeAll(
  opts: EvalCommandOptions,
  scorer: Scorer,
  pool: SandboxPool,
  gold: Array<{ sql: string }>,
  preds: Array<{ sql: string }>,
  dbPaths: string[],
): Promise<ItemVerdict[]> {
  const suites = dbPaths.map((p) => databaseSuite(scorer, p));
  const flat = suites.flatMap((suite, i) => suite.map((dbPath) => ({ dbPath, goldSql: gold[i].sql, predSql: preds[i].sql })));
  const verdicts = await evaluateExecution({ semantics: opts.format, pool, items: flat, birdRows: scorer.birdRows, deadlineMs: opts.timeoutMs });
  let next = 0;
  return suites.map((suite) => {
    const mine = verdicts.slice(next, next + suite.length);
    next += suite.length;
    const failing = mine.findIndex((v) => !v.correct);
    if (failing < 0 || suite.length === 1) return mine[Math.max(failing, 0)];
    return { ...mine[failing], reason: `${mine[failing].reason} (on ${suite[failing]})` };
  });
}

/** VES reward of a correct item, timed by the one procedure of libs/sql-sandbox (`timeForVes`). */
async function vesOf(pool: SandboxPool, opts: EvalCommandOptions, dbPath: string, goldSql: string, predSql: string) {
  const gold = officialSql(opts.format, 'gold', goldSql);
  const timed = await timeForVes(pool, dbPath, gold, officialSql(opts.format, 'pred', predSql), { repeats: opts.vesIterations });
  return timed ? vesReward(true, timed.goldMs, timed.predMs) : { reward: 0, timeRatio: 0 }; // timed out or failed on re-run
}

function itemLine(i: number, dbId: string, level: string | undefined, levelNote: string | undefined, scorer: Scorer, v: ItemVerdict): EvalItemLine {
  const line: EvalItemLine = {
    i,
    db_id: dbId,
    level: level ?? null,
    ...(level === undefined ? { level_note: levelNote ?? 'unknown' } : {}),
    scorer: scorer.id,
    exec: v.correct ? 1 : 0,
    score: v.correct ? 1 : 0,
    reason: v.reason,
    pred_status: v.pred.status,
    gold_status: v.gold.status,
  };
  if (v.pred.status === 'error') {
    line.pred_error_kind = v.pred.errorKind;
    line.pred_message = v.pred.message;
  }
  if (v.divergent) line.divergent = v.divergent;
  return line;
}

/** The official per-level table; levels no item has are left out when no item has a level at all. */
function summaryTable(format: EvalCommandOptions['format'], metric: EvalCommandOptions['metric'], items: EvalItemLine[]): string {
  const scored = items.map((it) => ({ level: it.level ?? undefined, score: it.score }));
  const anyLevel = items.some((it) => it.level !== null);
  if (format === 'spider') {
    const titles = { ex: ['EXECUTION ACCURACY', 'execution'], ves: ['VES', 'ves'], 'soft-f1': ['SOFT F1', 'soft-f1'] } as const;
    const scale = metric === 'ves' ? 100 : 1;
    return spiderSummaryTable(breakdown(scored, anyLevel ? SPIDER_LEVELS : [], 'all', scale), ...titles[metric]);
  }
  const titles = { ex: ['ACCURACY', 'accuracy'], ves: ['VES', 'ves'], 'soft-f1': ['SOFT F1', 'soft-f1'] } as const;
  return birdSummaryTable(breakdown(scored, anyLevel ? BIRD_LEVELS : [], 'total', 100), ...titles[metric]);
}

/** Checks the raw option strings; a bad value is a usage error naming the option (exit 2, one line). */
function parseOptions(raw: Record<string, string | undefined>): EvalCommandOptions {
  const positiveInt = (name: string, value: string | undefined, fallback?: number): number | undefined => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${value}"`);
    return n;
  };
  const oneOf = <T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T => {
    if (!allowed.includes(value as T)) throw new Error(`--${name} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value as T;
  };
  return {
    format: oneOf('format', raw.format, ['spider', 'bird'] as const),
    dbDir: raw.dbDir!,
    gold: raw.gold!,
    pred: raw.pred!,
    metric: oneOf('metric', raw.metric, ['ex', 'ves', 'soft-f1'] as const),
    out: raw.out,
    questions: raw.questions,
    workers: positiveInt('workers', raw.workers),
    timeoutMs: positiveInt('timeout-ms', raw.timeoutMs, 30_000)!,
    vesIterations: positiveInt('ves-iterations', raw.vesIterations, 100)!,
    scorer: raw.scorer,
  };
}

/** Creates --out's folder before any work, so a bad path fails first, not after the evaluation. */
function prepareOut(out: string | undefined): void {
  if (out === undefined) return;
  try {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, '');
  } catch (err) {
    throw new Error(`--out ${out}: cannot write: ${(err as Error).message}`);
  }
}

export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description('score a prediction file against gold SQL the way the official Spider / BIRD scripts do')
    .showHelpAfterError(false)
    .requiredOption('--format <format>', 'file formats and semantics: spider or bird')
    .requiredOption('--db-dir <dir>', 'folder holding <db_id>/<db_id>.sqlite')
    .requiredOption('--gold <file>', 'gold file, "SQL<TAB>db_id" a line')
    .requiredOption('--pred <file>', 'predictions: Spider one SQL a line; BIRD {"<idx>": "SQL\\t----- bird -----\\tdb_id"}')
    .option('--metric <metric>', 'what to score: ex, ves or soft-f1', 'ex')
    .option('--scorer <name[@version]>', `named scorer (default: the format's official one): ${[...new Set(SCORER_IDS)].join(', ')}`)
    .option('--out <file>', 'write one JSON line per item with its verdict and why (folders are created)')
    .option('--questions <file>', 'BIRD: dev.json for the difficulty breakdown (default: dev.json beside --gold)')
    .option('--workers <n>', 'sandbox processes (default: cores)')
    .option('--timeout-ms <ms>', 'per-query deadline (default 30000)')
    .option('--ves-iterations <n>', 'timed runs per query for VES (default 100)')
    .action(async (raw: Record<string, string | undefined>, cmd: Command) => {
      let summary: EvalSummary;
      let opts: EvalCommandOptions;
      try {
        opts = parseOptions(raw);
        resolveScorer(opts);
        prepareOut(opts.out);
        summary = await runEval(opts);
      } catch (err) {
        cmd.error(`sqlsweep eval: ${(err as Error).message}`, { exitCode: 2 });
        return;
      }
      if (opts.out) writeFileSync(opts.out, summary.items.map((it) => JSON.stringify(it)).join('\n') + '\n');
      for (const warning of summary.warnings) process.stderr.write(`warning: ${warning}\n`);
      for (const notice of summary.notices) process.stderr.write(`notice: ${notice}\n`);
      process.stdout.write(`${summary.table}\n`);
      process.stdout.write(`scorer: ${summary.scorer.id} (${summary.scorer.follows})\n`);
      process.stdout.write(`divergent from the official script: ${summary.divergentCount} item(s)${summary.divergentCount ? ' (see "divergent" in --out)' : ''}\n`);
      if (summary.metric === 'soft-f1') {
        process.stdout.write(`order-dependent (official value depends on Python's hash seed): ${summary.orderDependentCount} item(s)\n`);
      }
      if (summary.metric === 'ves') process.stdout.write(`timings measured on: ${summary.machine}\n`);
    });
}
