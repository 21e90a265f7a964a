import { renderSchemaDdl } from '@sqlsweep/datasets';
import { RB_SQL_MAX_CORRECTIONS } from '@sqlsweep/contracts';
import { from, optionalSlot, slot, stagesOf } from '../../define-stage';
import { evidenceLine } from '../../llm-call';
import type { EstimateContext } from '../../stage-context';
import { loadTemplate } from '../../template';
import { parseChainSql } from './generate';
import { applyRuleFixes } from './rule-fixes';
import { subSchema, type ChainSql, type ExecutionCheck, type FilteredSchema, type RbSqlErrorClass } from './types';

export const correctTemplate = loadTemplate('rb-sql.correct');

/** RB-SQL's error classes from SQLite's message (mismatched results cannot be seen without the gold). */
export function classifySqliteError(message: string): Exclude<RbSqlErrorClass, 'empty' | 'none'> {
  if (/no such (table|column)|ambiguous column name|no such function/i.test(message)) return 'schema-linking';
  if (/syntax error|incomplete input|unrecognized token|near "/i.test(message)) return 'syntax';
  return 'internal';
}

const rbSql = stagesOf('rb-sql');

/**
 * Whether a correction answer says the schema it was shown lacks tables or columns (appendix A: "when the output of
 * LLMs explicitly signals the absence of schema components"). The prompt asks for the line MISSING SCHEMA; real
 * models also bold it, fence it, comment it out, end it with punctuation or say it in prose, and sometimes deny
 * it ("no missing schema").
 */
export function signalsMissingSchema(answer: string): boolean {
  const text = answer.replace(/[*_`#>~]/g, ' ').replace(/[ \t]+/g, ' ');
  const signals = /\bmissing[\s-]*schema\b|\b(?:missing|absent|not (?:present|shown|included|listed|found)) (?:from|in) the (?:given |provided |shown )?schema\b/gi;
  for (const m of text.matchAll(signals)) {
    const before = text.slice(Math.max(0, m.index! - 30), m.index!).toLowerCase();
    if (!/\b(?:no|not|nothing|none|without|isn't|aren't)\b[^.!?:\n]*$/.test(before) || m[0].toLowerCase().startsWith('not ')) return true;
  }
  return false;
}

/** The answer without lines that hold nothing but the signal, so that one written inside the SQL fence is not parsed as SQL. */
export function withoutSignalLines(answer: string): string {
  return answer.replace(/^[^\w\n]*missing[\s_-]*schema[^\w\n]*$/gim, '');
}

/**
 * `rb-sql.check-<r>`: executes the prediction so far. A chain that already stopped passes through unexecuted. A
 * query SQLite rejects is first put through the rule-based corrections (`applyRuleFixes`) and run again; what still
 * fails (an error, a timeout, an empty result, a missing query) asks for an LLM correction, and so does an answer
 * that said the schema it was shown lacked items, while it has not yet seen the full schema.
 */
function checkStage(round: number) {
  return rbSql.compute({
    name: `rb-sql.check-${round}`, role: 'sql', version: 2, inputs: { previous: slot<ChainSql>() },
    run: async (ctx) => {
      let { previous } = ctx.inputs;
      const done = (check: Omit<ExecutionCheck, 'previous'>): { output: ExecutionCheck } => ({ output: { previous, ...check } });
      if (previous.stopped) return done({ needsCorrection: false, errorClass: 'none', feedback: '' });
      if (previous.sql === null) return done({ needsCorrection: true, errorClass: 'syntax', feedback: `The answer held no SQL query (${previous.parseError ?? 'unparseable'}).` });
      if (previous.missingSchema && !previous.fullSchemaShown) {
        return done({ needsCorrection: true, errorClass: 'schema-linking', feedback: 'The previous answer said the schema shown lacked tables or columns the question needs; the full database schema is shown now.' });
      }
      const execute = (sql: string) => ctx.services.sandbox.execute({ dbPath: ctx.dbPath, sql, deadlineMs: ctx.services.sqlDeadlineMs });
      let result = await execute(previous.sql);
      if (result.status === 'error') {
        const fixed = applyRuleFixes(previous.sql, ctx.schema);
        if (fixed.applied.length > 0) {
          previous = { ...previous, sql: fixed.sql, ruleFixes: [...(previous.ruleFixes ?? []), ...fixed.applied] };
          result = await execute(fixed.sql);
        }
      }
      if (result.status === 'timeout') return done({ needsCorrection: true, errorClass: 'internal', feedback: `The query did not finish within ${ctx.services.sqlDeadlineMs} ms.` });
      if (result.status === 'error') return done({ needsCorrection: true, errorClass: classifySqliteError(result.message), feedback: `SQLite error: ${result.message}` });
      if (result.rows.length === 0) return done({ needsCorrection: true, errorClass: 'empty', feedback: 'The query ran but returned no rows.' });
      return done({ needsCorrection: false, errorClass: 'none', feedback: '' });
    },
  });
}

/**
 * Whether round `round` shows the full schema instead of the filtered one. `fullSchemaAfter` is read only with a
 * filtered schema (the graph leaves it out of the key otherwise).
 */
function usesFullSchema(round: number, fullSchemaAfter: number, previous: ChainSql, filtered: FilteredSchema | undefined): boolean {
  if (!filtered) return true;
  return previous.fullSchema === true || round > fullSchemaAfter;
}

function correctionValues(round: number, ctx: Pick<EstimateContext, 'schema' | 'item'> & { params: { fullSchemaAfter: number } }, check: ExecutionCheck, filtered: FilteredSchema | undefined): Record<string, string> {
  const full = usesFullSchema(round, ctx.params.fullSchemaAfter, check.previous, filtered);
  return {
    schema: renderSchemaDdl(full ? ctx.schema : subSchema(ctx.schema, filtered)),
    evidence_line: evidenceLine(ctx.item),
    question: ctx.item.question,
    sql: check.previous.sql === null ? '(no query)' : `\`\`\`sql\n${check.previous.sql}\n\`\`\``,
    error_class: check.errorClass,
    feedback: check.feedback,
  };
}

const roundMetric = (round: number): string => `rb-sql.correct.round${round}`;

/**
 * `rb-sql.correct-<r>`: one error-correction round (RB-SQL 4.5), unrolled. Skipped, passing the prediction through,
 * when the check found nothing to correct. Records whether the round called the LLM (`rb-sql.correct.round<r>`).
 */
function correctStage(round: number, check: ReturnType<typeof checkStage>) {
  return rbSql.llm({
    name: `rb-sql.correct-${round}`, version: 3, template: correctTemplate, expectedOutputTokens: 60,
    reads: ['fullSchemaAfter'],
    inputs: { check: from(check), schema: optionalSlot<FilteredSchema>() },
    skip: (ctx) => {
      const { check } = ctx.inputs;
      if (check.needsCorrection) return undefined;
      const { metrics: _m, ...previous } = check.previous;
      const output: ChainSql = { ...previous, stopped: true, metrics: { [roundMetric(round)]: 0 } };
      return { output };
    },
    // Before the run the planner estimates a round over the full schema that corrects the gold query.
    render: (ctx, inputs) => inputs
      ? correctionValues(round, ctx, inputs.check, inputs.schema)
      : correctionValues(round, ctx, { previous: { sql: ctx.item.goldSql }, needsCorrection: true, errorClass: 'syntax', feedback: 'SQLite error: near "FROM": syntax error' }, undefined),
    parse: (response, ctx): ChainSql => {
      const { check, schema: filtered } = ctx.inputs;
      const missingSchema = signalsMissingSchema(response.output);
      const fullSchemaShown = usesFullSchema(round, ctx.params.fullSchemaAfter, check.previous, filtered);
      return {
        ...parseChainSql(withoutSignalLines(response.output)),
        attempts: (check.previous.attempts ?? 0) + 1,
        fullSchema: fullSchemaShown || missingSchema,
        fullSchemaShown,
        ...(missingSchema ? { missingSchema } : {}),
        ...(check.previous.ruleFixes ? { ruleFixes: check.previous.ruleFixes } : {}),
        metrics: { [roundMetric(round)]: 1 },
      };
    },
  });
}

/** Round r (1-based) of the unrolled correction: its check and its correction, the same definitions for the graph and the registry. */
export const correctionRounds = Array.from({ length: RB_SQL_MAX_CORRECTIONS }, (_, i) => {
  const check = checkStage(i + 1);
  return { check, correct: correctStage(i + 1, check) };
});
