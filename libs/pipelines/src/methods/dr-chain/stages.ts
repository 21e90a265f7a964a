import { createHash } from 'node:crypto';
import { renderSchemaDdl } from '@sqlsweep/datasets';
import { sqlValueKey, type ExecutionResult } from '@sqlsweep/sql-sandbox';
import { parseSqlAnswer } from '../../parse-sql';
import { sqlSkeleton } from '../../sql/skeleton';
import { trainInputs, type ComputeStage, type EstimateContext, type LlmCall, type LlmStage, type StageContext } from '../../stage-context';
import { evidenceLine, templateCall } from '../../llm-call';
import type { GeneratedSql } from '../../stages/common';
import { pooledIndexFor, questionSkeleton, type PooledDocument } from '../../similarity';
import { parseExplanation, parseSimplifiedQuestion, type Explanation, type Simplified } from './parse';
import { relatedContents } from './related-contents';
import { templates } from './templates';

/** One (skeleton, SQL) entry of the retrieval repository; each training item gives one or two. */
export interface RepositoryEntry { variant: 'original' | 'simplified'; skeleton: string; itemId: string; dbId: string; question: string; sql: string }
export interface TrainSkeletons { entries: RepositoryEntry[] }
export interface ItemSkeletons { original: string; simplified: string | null; simplifiedQuestion: string | null }
export interface Demonstration { itemId: string; dbId: string; question: string; sql: string; via: 'original' | 'simplified'; score: number }
export interface Retrieved { demonstrations: Demonstration[]; metrics: Record<string, number> }
/** Output of generation and of every revision step. */
export interface RevisionState extends GeneratedSql { revisions: number; stopped?: boolean }
export interface Feedback extends RevisionState {
  iteration: number;
  stopped: boolean;
  stopReason?: string;
  /** the execution outcome as the revision prompt shows it */
  execution: string;
  /** identity of the execution result, to detect a repeated result */
  resultKey: string;
  contents: string;
}

const num = (ctx: Pick<EstimateContext, 'params'>, name: string) => Number(ctx.params[name]);

// ---- simplification (offline per training item, online per item): same prompt, temperature 1.0 by default

function simplifyPrompt(ctx: EstimateContext): LlmCall {
  // The simplification stage has no length knob: a simplified question is short.
  return { ...templateCall(ctx, templates.simplify, { question: ctx.item.question }, 30, num(ctx, 'simplifyTemperature')), maxTokens: 256 };
}

export const simplifyStage: LlmStage = {
  kind: 'llm',
  prompt: simplifyPrompt,
  estimate: simplifyPrompt,
  parse: (response): Simplified => parseSimplifiedQuestion(response.output),
};

// ---- skeletons

function simplifiedOf(ctx: StageContext): string | null {
  const s = ctx.inputs.simplified as Simplified | undefined;
  return s?.simplified ?? null;
}

export const trainSkeletonsStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const base = { itemId: ctx.item.itemId, dbId: ctx.item.dbId, question: ctx.item.question, sql: ctx.item.goldSql };
    const entries: RepositoryEntry[] = [{ ...base, variant: 'original', skeleton: questionSkeleton(ctx.item.question, ctx.schema) }];
    const simplified = simplifiedOf(ctx);
    if (simplified) entries.push({ ...base, variant: 'simplified', skeleton: questionSkeleton(simplified, ctx.schema) });
    const output: TrainSkeletons = { entries };
    return { output };
  },
};

export const skeletonsStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const simplified = simplifiedOf(ctx);
    const output: ItemSkeletons = {
      original: questionSkeleton(ctx.item.question, ctx.schema),
      simplified: simplified === null ? null : questionSkeleton(simplified, ctx.schema),
      simplifiedQuestion: simplified,
    };
    return { output };
  },
};

// ---- retrieval: k1 distinct training items by S_o, then k2 more by S_r (by S_o again without simplification)

export const retrieveStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const skeletons = ctx.inputs.skeletons as ItemSkeletons;
    const docs: PooledDocument<RepositoryEntry>[] = [];
    for (const [trainId, out] of [...trainInputs<TrainSkeletons>(ctx, 'repository')].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (trainId === ctx.item.itemId) continue;
      for (const entry of out.entries) docs.push({ id: `${entry.variant}:${trainId}`, text: entry.skeleton, payload: entry });
    }
    const index = await pooledIndexFor(await ctx.services.retrieval.encoder(), docs);
    const chosen = new Map<string, Demonstration>();
    const take = async (skeleton: string, k: number, via: Demonstration['via']) => {
      if (k <= 0) return;
      let added = 0;
      for (const hit of await index.rank(skeleton)) {
        if (added >= k) break;
        const e = hit.payload;
        if (chosen.has(e.itemId)) continue;
        chosen.set(e.itemId, { itemId: e.itemId, dbId: e.dbId, question: e.question, sql: e.sql, via, score: Number(hit.score.toFixed(6)) });
        added++;
      }
    };
    const k1 = num(ctx, 'k1');
    const k2 = num(ctx, 'k2');
    if (skeletons.simplified !== null) {
      await take(skeletons.original, k1, 'original');
      await take(skeletons.simplified, k2, 'simplified');
    } else {
      await take(skeletons.original, k1 + k2, 'original');
    }
    const demonstrations = [...chosen.values()];
    // How sample-aware the retrieval was: demonstrations whose SQL has the gold SQL's skeleton (both without schema,
    // since the demonstrations come from other databases).
    const goldSkeleton = sqlSkeleton(ctx.item.goldSql);
    const matching = demonstrations.filter((d) => sqlSkeleton(d.sql) === goldSkeleton).length;
    const output: Retrieved = {
      demonstrations,
      metrics: {
        'retrieve.demonstrations': demonstrations.length,
        'retrieve.meanSimilarity': demonstrations.length ? demonstrations.reduce((s, d) => s + d.score, 0) / demonstrations.length : 0,
        'retrieve.skeletonMatchShare': demonstrations.length ? matching / demonstrations.length : 0,
        'retrieve.skeletonMatchAny': matching > 0 ? 1 : 0,
      },
    };
    return { output };
  },
};

export function renderDemonstrations(demonstrations: ReadonlyArray<Pick<Demonstration, 'question' | 'sql'>>): string {
  if (!demonstrations.length) return '(none)';
  return demonstrations.map((d) => `Question: ${d.question}\nSQL: ${d.sql}`).join('\n\n');
}

/** Before a run the demonstrations are unknown: the planner assumes k1 + k2 examples the size of the item's own. */
function standInDemonstrations(ctx: EstimateContext): string {
  const k = num(ctx, 'k1') + num(ctx, 'k2');
  return renderDemonstrations(Array.from({ length: k }, () => ({ question: ctx.item.question, sql: ctx.item.goldSql })));
}

// ---- generation (temperature 0.5)

function generatePrompt(ctx: EstimateContext, demonstrations: string): LlmCall {
  return templateCall(ctx, templates.generate, {
    schema: renderSchemaDdl(ctx.schema), demonstrations, evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
  }, 60);
}

function parseSql(raw: string): GeneratedSql {
  const parsed = parseSqlAnswer(raw);
  return parsed.ok ? { sql: parsed.sql } : { sql: null, parseError: parsed.error };
}

export const generateStage: LlmStage = {
  kind: 'llm',
  prompt: (ctx) => generatePrompt(ctx, renderDemonstrations((ctx.inputs.retrieve as Retrieved).demonstrations)),
  estimate: (ctx) => generatePrompt(ctx, standInDemonstrations(ctx)),
  parse: (response): RevisionState => ({ ...parseSql(response.output), revisions: 0 }),
};

// ---- revision chain step i: feedback (compute), explanation (LLM), revision (LLM)

/** What identifies an execution result for the stop test: rows in order, or the error text. */
export function resultKey(sql: string | null, result: ExecutionResult | null): string {
  if (sql === null || result === null) return 'no-sql';
  if (result.status === 'error') return `error:${result.message}`;
  if (result.status === 'timeout') return 'timeout';
  const hash = createHash('sha256').update(JSON.stringify(result.columns.length));
  for (const row of result.rows) hash.update(`\n${row.map(sqlValueKey).join('\u0001')}`);
  return `ok:${hash.digest('hex')}`;
}

export function describeExecution(state: GeneratedSql, result: ExecutionResult | null): string {
  if (state.sql === null || result === null) return `no query could be read from the previous answer (${state.parseError ?? 'unparseable'})`;
  if (result.status === 'error') return `the query failed: ${result.message}`;
  if (result.status === 'timeout') return 'the query ran past the time limit';
  if (!result.rows.length) return `the query ran and returned no rows (columns: ${result.columns.join(', ')})`;
  const shown = result.rows.slice(0, 5).map((r) => JSON.stringify(r.map((v) => (typeof v === 'object' && v !== null ? sqlValueKey(v) : v))));
  return `the query ran and returned ${result.rows.length}${result.truncated ? '+' : ''} rows (columns: ${result.columns.join(', ')}); first rows: ${shown.join(' ')}`;
}

export function feedbackStage(iteration: number): ComputeStage {
  return {
    kind: 'compute',
    run: async (ctx) => {
      const current = ctx.inputs.current as RevisionState;
      const earlier = ctx.inputs.earlier as Feedback | undefined;
      const carried = { sql: current.sql, ...(current.parseError ? { parseError: current.parseError } : {}), revisions: current.revisions };
      if (current.stopped || earlier?.stopped) {
        const output: Feedback = { ...carried, iteration, stopped: true, stopReason: 'the chain stopped earlier', execution: '', resultKey: earlier?.resultKey ?? '', contents: '' };
        return { output };
      }
      let result: ExecutionResult | null = null;
      if (current.sql !== null) {
        const { timingsMs: _t, ...r } = await ctx.services.sandbox.execute({ dbPath: ctx.dbPath, sql: current.sql, deadlineMs: ctx.services.sqlDeadlineMs });
        result = r;
      }
      const key = resultKey(current.sql, result);
      if (earlier && earlier.resultKey === key) {
        const output: Feedback = { ...carried, iteration, stopped: true, stopReason: 'same execution result as the previous iteration', execution: describeExecution(current, result), resultKey: key, contents: '' };
        return { output };
      }
      const contents = await relatedContents(current.sql, ctx.item.question, ctx.schema, {
        sandbox: ctx.services.sandbox, dbPath: ctx.dbPath, deadlineMs: ctx.services.sqlDeadlineMs, valuesPerColumn: num(ctx, 'contentValues'),
      });
      const output: Feedback = { ...carried, iteration, stopped: false, execution: describeExecution(current, result), resultKey: key, contents: contents.text };
      return { output };
    },
  };
}

function explainPrompt(ctx: EstimateContext, sql: string): LlmCall {
  return templateCall(ctx, templates.explain, {
    schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question, sql,
  }, 80);
}

export const explainStage: LlmStage = {
  kind: 'llm',
  skip: (ctx) => {
    const fb = ctx.inputs.feedback as Feedback;
    if (fb.stopped || fb.sql === null) {
      const output: Explanation = { explanation: null, skipped: true };
      return { output };
    }
    return undefined;
  },
  prompt: (ctx) => explainPrompt(ctx, (ctx.inputs.feedback as Feedback).sql ?? ''),
  estimate: (ctx) => explainPrompt(ctx, ctx.item.goldSql),
  parse: (response) => parseExplanation(response.output),
};

function revisePrompt(ctx: EstimateContext, values: { demonstrations: string; sql: string; execution: string; explanation: string; contents: string }): LlmCall {
  return templateCall(ctx, templates.revise, {
    schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question, ...values,
  }, 60);
}

export const reviseStage: LlmStage = {
  kind: 'llm',
  skip: (ctx) => {
    const fb = ctx.inputs.feedback as Feedback;
    if (!fb.stopped) return undefined;
    const output: RevisionState = { sql: fb.sql, ...(fb.parseError ? { parseError: fb.parseError } : {}), revisions: fb.revisions, stopped: true };
    return { output };
  },
  prompt: (ctx) => {
    const fb = ctx.inputs.feedback as Feedback;
    const ex = ctx.inputs.explanation as Explanation;
    return revisePrompt(ctx, {
      demonstrations: renderDemonstrations((ctx.inputs.retrieve as Retrieved).demonstrations),
      sql: fb.sql ?? '-- (no query)',
      execution: fb.execution,
      explanation: ex.explanation ?? `(none: ${ex.parseError ?? 'there was no query to explain'})`,
      contents: fb.contents,
    });
  },
  estimate: (ctx) => revisePrompt(ctx, {
    demonstrations: standInDemonstrations(ctx), sql: ctx.item.goldSql, execution: 'the query ran and returned 1 rows', explanation: ctx.item.question, contents: ctx.item.goldSql,
  }),
  parse: (response, ctx): RevisionState => {
    const fb = ctx.inputs.feedback as Feedback;
    const parsed = parseSql(response.output);
    if (parsed.sql !== null) return { sql: parsed.sql, revisions: fb.revisions + 1 };
    // An answer without SQL keeps the previous query: revision must not lose a prediction it had.
    return { sql: fb.sql, parseError: `revision ${fb.iteration} held no SQL (${parsed.parseError}); kept the previous query`, revisions: fb.revisions + 1 };
  },
};

// ---- the prediction, with the revision counts as stage metrics

export const finalStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const initial = ctx.inputs.initial as RevisionState;
    const last = ctx.inputs.last as RevisionState;
    const output: GeneratedSql & { metrics: Record<string, number> } = {
      sql: last.sql,
      ...(last.sql === null && last.parseError ? { parseError: last.parseError } : {}),
      metrics: {
        'revision.count': last.revisions,
        'revision.changed': initial.sql !== last.sql ? 1 : 0,
        'revision.stoppedOnRepeat': last.stopped ? 1 : 0,
      },
    };
    return { output };
  },
};
