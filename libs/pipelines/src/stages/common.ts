import { goldFlagOf } from '@sqlsweep/datasets';
import { judgePrediction, officialSql, runPrediction, sweepScorer, vesReward, type ExecutionResult, type SandboxPool } from '@sqlsweep/sql-sandbox';
import type { StageNode } from '../pipeline';
import type { ComputeStage } from '../stage-context';

/** Output of the SQL-generation stages. `sql` is null when the answer held no usable query. */
export interface GeneratedSql { sql: string | null; parseError?: string }

/** Output of the final stage of every pipeline: the item's verdict. */
export interface EvaluateOutput {
  correct: boolean;
  errored: boolean;
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
 * Timed runs per query for VES. BIRD's script times 100 runs; 10 keeps sweeps fast on schema-sized databases and
 * still lets the 3-sigma filter work. `sqlsweep eval --metric ves` uses the official 100.
 */
export const VES_REPEATS = 10;

async function timeBoth(sandbox: SandboxPool, dbPath: string, goldSql: string, predSql: string, deadlineMs: number) {
  const gold = await sandbox.execute({ dbPath, sql: goldSql, deadlineMs, repeat: VES_REPEATS });
  const pred = await sandbox.execute({ dbPath, sql: predSql, deadlineMs, repeat: VES_REPEATS });
  if (!gold.timingsMs?.length || !pred.timingsMs?.length) return undefined;
  return { gold: gold.timingsMs, pred: pred.timingsMs };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Runs the gold query once per (dataset version, item); every variant and run reuses the result. */
export const goldStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const { timingsMs: _t, ...result } = await ctx.services.sandbox.execute({
      dbPath: ctx.dbPath, sql: officialSql(ctx.semantics, 'gold', ctx.item.goldSql), deadlineMs: ctx.services.sqlDeadlineMs,
    });
    return { output: result };
  },
};

/**
 * Executes the prediction and judges it with the named scorer for the dataset's format (`sweepScorer`): the same
 * verdicts as `sqlsweep eval --scorer <that id>`, writes included (run on a throw-away in-memory copy).
 */
export const evaluateStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const scorer = sweepScorer(ctx.semantics).id;
    const gold = ctx.inputs.gold as ExecutionResult;
    const generated = ctx.inputs.prediction as GeneratedSql;
    const goldInvalid = goldFlagOf(gold);
    if (goldInvalid) {
      // `datasets add` flags such gold and sweeps leave the item out; one that fails only now (a slower machine, say)
      // is an errored item, never a wrong answer: nothing can be scored against it.
      const output: EvaluateOutput = {
        correct: false, errored: true, reason: `gold invalid (${goldInvalid.flag}): ${goldInvalid.message}`, predictedSql: generated.sql,
        predicted: { status: 'error', message: 'not executed: the gold result cannot be compared' }, scorer, metrics: { ves: 0 },
      };
      return { output };
    }
    if (generated.sql === null) {
      const output: EvaluateOutput = {
        correct: false, errored: false, reason: `no prediction: ${generated.parseError ?? 'unparseable answer'}`,
        predictedSql: null, predicted: { status: 'error', message: generated.parseError }, scorer, metrics: { ves: 0 },
      };
      return { output };
    }
    const predSql = officialSql(ctx.semantics, 'pred', generated.sql);
    const run = await runPrediction({ semantics: ctx.semantics, pool: ctx.services.sandbox, dbPath: ctx.dbPath, predSql: generated.sql, deadlineMs: ctx.services.sqlDeadlineMs });
    const verdict = judgePrediction(ctx.semantics, ctx.item.goldSql, gold, run, sweepScorer(ctx.semantics).birdRows);
    const pred = run.result;
    // VES times only what ran on the replica itself: a write ran on a copy, an empty statement did not run at all.
    const timed = verdict.correct && !run.note
      ? await timeBoth(ctx.services.sandbox, ctx.dbPath, officialSql(ctx.semantics, 'gold', ctx.item.goldSql), predSql, ctx.services.sqlDeadlineMs)
      : undefined;
    const output: EvaluateOutput = {
      correct: verdict.correct,
      errored: false,
      reason: verdict.divergent ? `${verdict.reason} [divergent: ${verdict.divergent}]` : verdict.reason,
      predictedSql: generated.sql,
      predicted: pred.status === 'ok' ? { status: 'ok', rows: pred.rows.length }
        : pred.status === 'error' ? { status: 'error', message: pred.message } : { status: 'timeout' },
      scorer,
      ...(verdict.divergent ? { divergent: verdict.divergent } : {}),
      metrics: { ves: timed ? 100 * vesReward(true, timed.gold, timed.pred).reward : 0 },
      ...(timed ? { timing: { goldMs: mean(timed.gold), predMs: mean(timed.pred), repeats: VES_REPEATS } } : {}),
    };
    return { output };
  },
};

/** The last node of every pipeline: judge the stage whose output is the final `GeneratedSql`. */
export function evaluateNode(prediction: string): StageNode {
  return { stage: 'evaluate', role: 'sql', version: 4, reads: [], inputs: { gold: 'gold', prediction }, final: true };
}
