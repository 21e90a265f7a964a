import { renderSchemaDdl } from '@sqlsweep/datasets';
import type { ComputeStage, EstimateContext, LlmCall, LlmStage, StageContext } from '../../stage-context';
import { evidenceLine, templateCall } from '../../llm-call';
import { loadTemplate } from '../../template';
import { parseChainSql } from './generate';
import { subSchema, type ChainSql, type ExecutionCheck, type FilteredSchema, type RbSqlErrorClass } from './types';

export const correctTemplate = loadTemplate('rb-sql.correct');

/** RB-SQL's error classes from SQLite's message (mismatched results cannot be seen without the gold). */
export function classifySqliteError(message: string): Exclude<RbSqlErrorClass, 'empty' | 'none'> {
  if (/no such (table|column)|ambiguous column name|no such function/i.test(message)) return 'schema-linking';
  if (/syntax error|incomplete input|unrecognized token|near "/i.test(message)) return 'syntax';
  return 'internal';
}

/**
 * `rb-sql.check-<r>`: executes the prediction so far. A chain that already stopped passes through unexecuted; an
 * error, a timeout, an empty result or a missing query asks for a correction.
 */
export const checkStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const previous = ctx.inputs.previous as ChainSql;
    const done = (check: Omit<ExecutionCheck, 'previous'>): { output: ExecutionCheck } => ({ output: { previous, ...check } });
    if (previous.stopped) return done({ needsCorrection: false, errorClass: 'none', feedback: '' });
    if (previous.sql === null) return done({ needsCorrection: true, errorClass: 'syntax', feedback: `The answer held no SQL query (${previous.parseError ?? 'unparseable'}).` });
    const result = await ctx.services.sandbox.execute({ dbPath: ctx.dbPath, sql: previous.sql, deadlineMs: ctx.services.sqlDeadlineMs });
    if (result.status === 'timeout') return done({ needsCorrection: true, errorClass: 'internal', feedback: `The query did not finish within ${ctx.services.sqlDeadlineMs} ms.` });
    if (result.status === 'error') return done({ needsCorrection: true, errorClass: classifySqliteError(result.message), feedback: `SQLite error: ${result.message}` });
    if (result.rows.length === 0) return done({ needsCorrection: true, errorClass: 'empty', feedback: 'The query ran but returned no rows.' });
    return done({ needsCorrection: false, errorClass: 'none', feedback: '' });
  },
};

/** Whether round `round` shows the full schema instead of the filtered one. */
function usesFullSchema(round: number, params: EstimateContext['params'], previous: ChainSql, filtered: FilteredSchema | undefined): boolean {
  if (!filtered) return true;
  return previous.fullSchema === true || round > Number(params.fullSchemaAfter);
}

function correctionPrompt(round: number, ctx: EstimateContext, check: ExecutionCheck, filtered: FilteredSchema | undefined): LlmCall {
  const full = usesFullSchema(round, ctx.params, check.previous, filtered);
  return templateCall(ctx, correctTemplate, {
    schema: renderSchemaDdl(full ? ctx.schema : subSchema(ctx.schema, filtered)),
    evidence_line: evidenceLine(ctx.item),
    question: ctx.item.question,
    sql: check.previous.sql === null ? '(no query)' : `\`\`\`sql\n${check.previous.sql}\n\`\`\``,
    error_class: check.errorClass,
    feedback: check.feedback,
  }, 60);
}

const roundMetric = (round: number): string => `rb-sql.correct.round${round}`;

/**
 * `rb-sql.correct-<r>`: one error-correction round (RB-SQL 4.5), unrolled. Skipped, passing the prediction through,
 * when the check found nothing to correct. Records whether the round called the LLM (`rb-sql.correct.round<r>`).
 */
export function correctStage(round: number): LlmStage {
  const checkOf = (ctx: StageContext): ExecutionCheck => ctx.inputs.check as ExecutionCheck;
  return {
    kind: 'llm',
    skip: (ctx) => {
      const check = checkOf(ctx);
      if (check.needsCorrection) return undefined;
      const { metrics: _m, ...previous } = check.previous;
      const output: ChainSql = { ...previous, stopped: true, metrics: { [roundMetric(round)]: 0 } };
      return { output };
    },
    prompt: (ctx) => correctionPrompt(round, ctx, checkOf(ctx), ctx.inputs.schema as FilteredSchema | undefined),
    estimate: (ctx) => correctionPrompt(round, ctx, { previous: { sql: ctx.item.goldSql }, needsCorrection: true, errorClass: 'syntax', feedback: 'SQLite error: near "FROM": syntax error' }, undefined),
    parse: (response, ctx): ChainSql => {
      const check = checkOf(ctx);
      const filtered = ctx.inputs.schema as FilteredSchema | undefined;
      const missing = /^\s*MISSING SCHEMA\s*$/im.test(response.output);
      return {
        ...parseChainSql(response.output),
        attempts: (check.previous.attempts ?? 0) + 1,
        fullSchema: usesFullSchema(round, ctx.params, check.previous, filtered) || missing,
        metrics: { [roundMetric(round)]: 1 },
      };
    },
  };
}
