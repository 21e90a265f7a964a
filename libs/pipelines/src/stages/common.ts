import { goldFlagOf } from '@sqlsweep/datasets';
import { judgePrediction, officialSql, runPrediction, sweepScorer, timeForVes, vesReward, type ExecutionResult } from '@sqlsweep/sql-sandbox';
import { from, slot, stagesReading, type CommonParams } from '../define-stage';

/**
 * Output of the SQL-generation stages (what `parseFinalSql` returns): a query, or `sql: null` and the parse error.
 * A revision that held no SQL keeps the previous query and records why in `parseError` (dr-chain).
 */
export interface GeneratedSql { sql: string | null; parseError?: string }

/**
 * Output of the final stage of every pipeline: the item's verdict, one of four kinds: correct; wrong SQL (ran, or
 * failed to run, and did not match); parse failure (`parseFailed`: the method's final answer held no SQL to run,
 * whatever steps the method took before; never correct, never errored); errored (nothing could be scored).
 */
export interface EvaluateOutput {
  correct: boolean;
  errored: boolean;
  /** The final answer held no SQL (`GeneratedSql.sql` null): counted apart from wrong SQL, though EX counts it wrong. */
  parseFailed: boolean;
  reason: string;
  predictedSql: string | null;
  predicted: { status: ExecutionResult['status']; rows?: number; message?: string };
  /** The named scorer that gave the verdict (`bird-ex@2` ...): item results and run summaries carry it beside EX. */
  scorer: string;
  /** Set when the verdict may differ from the official script's, with why (a statement the sandbox refuses). */
  divergent?: string;
  /** `ves`: 100 x BIRD's reward for this item (0 when incorrect), so the mean over items is the VES. */
  metrics: { ves: number };
  /** Mean gold and predicted times of the VES measurement (correct items), on the worker's machine. */
  timing?: { goldMs: number; predMs: number; repeats: number };
}

/**
 * Timed runs per query for VES, by the one procedure of `timeForVes` (libs/sql-sandbox: a warm-up each, then the
 * prediction timed before the gold, as BIRD's script does). BIRD's script times 100 runs; 10 keeps sweeps fast on
 * schema-sized databases and still lets the 3-sigma filter work. `sqlsweep eval --metric ves` uses the official 100.
 * A worker reuses a timing of the same SQL on the same replica for `SQLSWEEP_TIMING_REUSE_MS` (SandboxPool
 * `timingReuseMs`): the gold query is timed at most once in that time, not once per variant that got the item right,
 * and a prediction whose text is the gold's takes the gold's timing, a ratio of exactly 1 (libs/sql-sandbox/README.md).
 */
export const VES_REPEATS = 10;

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Stages every pipeline has: they read no knob. */
const common = stagesReading<CommonParams>();

/** Runs the gold query once per (dataset version, item); every variant and run reuses the result. */
export const goldStage = common.compute({
  name: 'gold', role: 'sql', version: 1,
  run: async (ctx) => {
    const { timingsMs: _t, ...result } = await ctx.services.sandbox.execute({
      dbPath: ctx.dbPath, sql: officialSql(ctx.semantics, 'gold', ctx.item.goldSql), deadlineMs: ctx.services.sqlDeadlineMs,
    });
    const output: ExecutionResult = result;
    return { output };
  },
});

/**
 * Executes the prediction and judges it with the named scorer for the dataset's format (`sweepScorer`): the same
 * verdicts as `sqlsweep eval --scorer <that id>`, writes included (run on a throw-away in-memory copy).
 */
export const evaluateStage = common.compute({
  name: 'evaluate', role: 'sql', version: 6, final: true,
  inputs: { gold: from(goldStage), prediction: slot<GeneratedSql>() },
  run: async (ctx) => {
    const scorer = sweepScorer(ctx.semantics).id;
    const { gold, prediction: generated } = ctx.inputs;
    const goldInvalid = goldFlagOf(gold);
    if (goldInvalid) {
      // `datasets add` flags such gold and sweeps leave the item out; one that fails only now (a slower machine, say)
      // is an errored item, never a wrong answer: nothing can be scored against it.
      const output: EvaluateOutput = {
        correct: false, errored: true, parseFailed: false, reason: `gold invalid (${goldInvalid.flag}): ${goldInvalid.message}`, predictedSql: generated.sql,
        predicted: { status: 'error', message: 'not executed: the gold result cannot be compared' }, scorer, metrics: { ves: 0 },
      };
      return { output };
    }
    if (generated.sql === null) {
      // The same verdict for every method: a chain that saw a parse failure mid-way and ended with SQL is scored on
      // that SQL; only a final answer without SQL is a parse failure. Nothing is executed for it.
      const why = generated.parseError ?? 'unparseable answer';
      const output: EvaluateOutput = {
        correct: false, errored: false, parseFailed: true, reason: `parse failure: ${why}`,
        predictedSql: null, predicted: { status: 'error', message: `not executed: the answer held no SQL (${why})` }, scorer, metrics: { ves: 0 },
      };
      return { output };
    }
    const predSql = officialSql(ctx.semantics, 'pred', generated.sql);
    const run = await runPrediction({ semantics: ctx.semantics, pool: ctx.services.sandbox, dbPath: ctx.dbPath, predSql: generated.sql, deadlineMs: ctx.services.sqlDeadlineMs });
    const verdict = judgePrediction(ctx.semantics, ctx.item.goldSql, gold, run, sweepScorer(ctx.semantics).birdRows);
    const pred = run.result;
    // VES times only what ran on the replica itself: a write ran on a copy, an empty statement did not run at all.
    const timed = verdict.correct && !run.note
      ? await timeForVes(ctx.services.sandbox, ctx.dbPath, officialSql(ctx.semantics, 'gold', ctx.item.goldSql), predSql, { repeats: VES_REPEATS, deadlineMs: ctx.services.sqlDeadlineMs })
      : undefined;
    const output: EvaluateOutput = {
      correct: verdict.correct,
      errored: false,
      parseFailed: false,
      reason: verdict.divergent ? `${verdict.reason} [divergent: ${verdict.divergent}]` : verdict.reason,
      predictedSql: generated.sql,
      predicted: pred.status === 'ok' ? { status: 'ok', rows: pred.rows.length }
        : pred.status === 'error' ? { status: 'error', message: pred.message } : { status: 'timeout' },
      scorer,
      ...(verdict.divergent ? { divergent: verdict.divergent } : {}),
      metrics: { ves: timed ? 100 * vesReward(true, timed.goldMs, timed.predMs).reward : 0 },
      ...(timed ? { timing: { goldMs: mean(timed.goldMs), predMs: mean(timed.predMs), repeats: VES_REPEATS } } : {}),
    };
    return { output };
  },
});
