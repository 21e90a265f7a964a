import { compareExecution, officialSql, type ExecutionResult } from '@sqlsweep/sql-sandbox';
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
}

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

/** Executes the prediction and judges it against the gold with the dataset's official semantics. */
export const evaluateStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const gold = ctx.inputs.gold as ExecutionResult;
    const generated = ctx.inputs.prediction as GeneratedSql;
    if (generated.sql === null) {
      const output: EvaluateOutput = {
        correct: false, errored: false, reason: `no prediction: ${generated.parseError ?? 'unparseable answer'}`,
        predictedSql: null, predicted: { status: 'error', message: generated.parseError },
      };
      return { output };
    }
    const { timingsMs: _t, ...pred } = await ctx.services.sandbox.execute({
      dbPath: ctx.dbPath, sql: officialSql(ctx.semantics, 'pred', generated.sql), deadlineMs: ctx.services.sqlDeadlineMs,
    });
    const verdict = compareExecution(ctx.semantics, gold, pred, { goldSql: ctx.item.goldSql });
    const output: EvaluateOutput = {
      correct: verdict.correct,
      errored: false,
      reason: verdict.reason,
      predictedSql: generated.sql,
      predicted: pred.status === 'ok' ? { status: 'ok', rows: pred.rows.length }
        : pred.status === 'error' ? { status: 'error', message: pred.message } : { status: 'timeout' },
    };
    return { output };
  },
};
