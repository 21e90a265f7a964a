import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, Option } from 'commander';
import { parseSpiderSql, spiderHardness } from '@sqlsweep/datasets';
import {
  SandboxPool,
  birdSummaryTable,
  breakdown,
  evaluateExecution,
  machineLabel,
  officialSql,
  readBirdPredictions,
  readGoldFile,
  readSpiderPredictions,
  softF1,
  spiderSummaryTable,
  vesReward,
  type ExecutionResult,
  type ItemVerdict,
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
}

export interface EvalItemLine {
  i: number;
  db_id: string;
  level?: string;
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
}

export interface EvalSummary {
  metric: EvalCommandOptions['metric'];
  items: EvalItemLine[];
  table: string;
  machine: string;
  /** Items whose gold the Spider hardness parser could not read (the official script would stop there). */
  warnings: string[];
}

const SPIDER_LEVELS = ['easy', 'medium', 'hard', 'extra'];
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

function birdLevels(opts: EvalCommandOptions, count: number): Array<string | undefined> {
  const file = opts.questions ?? join(dirname(opts.gold), 'dev.json');
  if (!existsSync(file)) return new Array<undefined>(count).fill(undefined);
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, unknown>>;
  if (!Array.isArray(raw) || raw.length !== count) {
    throw new Error(`${file}: ${Array.isArray(raw) ? raw.length : 'no'} questions, but ${opts.gold} has ${count} gold queries`);
  }
  return raw.map((q) => (typeof q.difficulty === 'string' ? q.difficulty : undefined));
}

function databasePath(dbDir: string, dbId: string): string {
  const path = join(dbDir, dbId, `${dbId}.sqlite`);
  if (!existsSync(path)) throw new Error(`${path}: database of db_id ${dbId} not found under --db-dir`);
  return path;
}

/** Scores a prediction file against a gold file the way the official script for the format does. */
export async function runEval(opts: EvalCommandOptions): Promise<EvalSummary> {
  const gold = readGoldFile(opts.gold);
  const preds =
    opts.format === 'spider' ? readSpiderPredictions(opts.pred).map((sql) => ({ sql, dbId: undefined })) : readBirdPredictions(opts.pred);
  if (preds.length !== gold.length) {
    throw new Error(`${opts.pred} has ${preds.length} predictions but ${opts.gold} has ${gold.length} gold queries; refusing to pair them by position`);
  }
  const warnings: string[] = [];
  const levels = opts.format === 'spider' ? spiderLevels(gold, warnings) : birdLevels(opts, gold.length);
  // BIRD's script runs both queries on the database named by the prediction line.
  const dbIds = gold.map((g, i) => (opts.format === 'bird' ? (preds[i].dbId ?? g.dbId) : g.dbId));
  dbIds.forEach((id, i) => {
    if (id !== gold[i].dbId) warnings.push(`item ${i}: prediction names db ${id}, gold names ${gold[i].dbId}; running on ${id} as BIRD's script does`);
  });
  const dbPaths = dbIds.map((id) => databasePath(opts.dbDir, id));
  const pool = new SandboxPool({ size: opts.workers, deadlineMs: opts.timeoutMs });
  try {
    const verdicts = await judgeAll(opts, pool, gold, preds, dbPaths);
    const items = await Promise.all(
      verdicts.map(async (v, i) => {
        const line = itemLine(i, dbIds[i], levels[i], v);
        if (opts.metric === 'soft-f1') {
          line.score = v.gold.status === 'ok' && v.pred.status === 'ok' ? softF1(v.pred.rows, v.gold.rows) : 0;
        } else if (opts.metric === 'ves') {
          const timing = v.correct ? await timeBoth(pool, opts, dbPaths[i], gold[i].sql, preds[i].sql) : { reward: 0, timeRatio: 0 };
          line.score = timing.reward;
          line.time_ratio = timing.timeRatio;
          line.machine = machineLabel();
        }
        return line;
      }),
    );
    return { metric: opts.metric, items, table: summaryTable(opts, items), machine: machineLabel(), warnings };
  } finally {
    await pool.close();
  }
}

/**
 * Spider's official exec check runs both queries on every file with ".sqlite" in its name in the database's folder
 * (one file for Spider itself, a suite of variants for test-suite accuracy) and needs all to match. BIRD uses the
 * one database.
 */
function databaseSuite(format: EvalCommandOptions['format'], dbPath: string): string[] {
  if (format === 'bird') return [dbPath];
  const dir = dirname(dbPath);
  return readdirSync(dir)
    .filter((name) => name.includes('.sqlite'))
    .sort()
    .map((name) => join(dir, name));
}

async function judgeAll(
  opts: EvalCommandOptions,
  pool: SandboxPool,
  gold: Array<{ sql: string }>,
  preds: Array<{ sql: string }>,
  dbPaths: string[],
): Promise<ItemVerdict[]> {
  const suites = dbPaths.map((p) => databaseSuite(opts.format, p));
  const flat = suites.flatMap((suite, i) => suite.map((dbPath) => ({ dbPath, goldSql: gold[i].sql, predSql: preds[i].sql })));
  const verdicts = await evaluateExecution({ semantics: opts.format, pool, items: flat });
  let next = 0;
  return suites.map((suite) => {
    const mine = verdicts.slice(next, next + suite.length);
    next += suite.length;
    const failing = mine.findIndex((v) => !v.correct);
    if (failing < 0 || suite.length === 1) return mine[Math.max(failing, 0)];
    return { ...mine[failing], reason: `${mine[failing].reason} (on ${suite[failing]})` };
  });
}

/**
 * Times both queries `vesIterations` times for VES. Each gets one untimed warm-up run first, so whichever runs
 * first does not pay for cold caches (the official script times the prediction first, cold).
 */
async function timeBoth(pool: SandboxPool, opts: EvalCommandOptions, dbPath: string, goldSql: string, predSql: string) {
  const repeat = opts.vesIterations + 1;
  const predRun = await pool.execute({ dbPath, sql: officialSql(opts.format, 'pred', predSql), repeat });
  const goldRun = await pool.execute({ dbPath, sql: officialSql(opts.format, 'gold', goldSql), repeat });
  if (!predRun.timingsMs || !goldRun.timingsMs) return { reward: 0, timeRatio: 0 }; // timed out or failed on re-run
  return vesReward(true, goldRun.timingsMs.slice(1), predRun.timingsMs.slice(1));
}

function itemLine(i: number, dbId: string, level: string | undefined, v: ItemVerdict): EvalItemLine {
  const line: EvalItemLine = {
    i,
    db_id: dbId,
    ...(level !== undefined ? { level } : {}),
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
  return line;
}

function summaryTable(opts: EvalCommandOptions, items: EvalItemLine[]): string {
  const scored = items.map((it) => ({ level: it.level, score: it.score }));
  if (opts.format === 'spider') {
    const titles = { ex: ['EXECUTION ACCURACY', 'execution'], ves: ['VES', 'ves'], 'soft-f1': ['SOFT F1', 'soft-f1'] } as const;
    const scale = opts.metric === 'ves' ? 100 : 1;
    return spiderSummaryTable(breakdown(scored, SPIDER_LEVELS, 'all', scale), ...titles[opts.metric]);
  }
  const titles = { ex: ['ACCURACY', 'accuracy'], ves: ['VES', 'ves'], 'soft-f1': ['SOFT F1', 'soft-f1'] } as const;
  return birdSummaryTable(breakdown(scored, BIRD_LEVELS, 'total', 100), ...titles[opts.metric]);
}

const positiveInt = (name: string) => (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${value}"`);
  return n;
};

export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description('score a prediction file against gold SQL the way the official Spider / BIRD scripts do')
    .addOption(new Option('--format <format>', 'file formats and semantics').choices(['spider', 'bird']).makeOptionMandatory())
    .requiredOption('--db-dir <dir>', 'folder holding <db_id>/<db_id>.sqlite')
    .requiredOption('--gold <file>', 'gold file, "SQL<TAB>db_id" a line')
    .requiredOption('--pred <file>', 'predictions: Spider one SQL a line; BIRD {"<idx>": "SQL\\t----- bird -----\\tdb_id"}')
    .addOption(new Option('--metric <metric>', 'what to score').choices(['ex', 'ves', 'soft-f1']).default('ex'))
    .option('--out <file>', 'write one JSON line per item with its verdict and why')
    .option('--questions <file>', 'BIRD: dev.json for the difficulty breakdown (default: dev.json beside --gold)')
    .option('--workers <n>', 'sandbox processes (default: cores)', positiveInt('workers'))
    .option('--timeout-ms <ms>', 'per-query deadline', positiveInt('timeout-ms'), 30_000)
    .option('--ves-iterations <n>', 'timed runs per query for VES', positiveInt('ves-iterations'), 100)
    .action(async (raw: Omit<EvalCommandOptions, 'format' | 'metric'> & { format: string; metric: string }, cmd: Command) => {
      let summary: EvalSummary;
      try {
        summary = await runEval({ ...raw, format: raw.format as EvalCommandOptions['format'], metric: raw.metric as EvalCommandOptions['metric'] });
      } catch (err) {
        cmd.error(`sqlsweep eval: ${(err as Error).message}`, { exitCode: 2 });
        return;
      }
      if (raw.out) writeFileSync(raw.out, summary.items.map((it) => JSON.stringify(it)).join('\n') + '\n');
      for (const warning of summary.warnings) process.stderr.write(`warning: ${warning}\n`);
      process.stdout.write(`${summary.table}\n`);
      if (summary.metric === 'ves') process.stdout.write(`timings measured on: ${summary.machine}\n`);
    });
}
