import { createHash } from 'node:crypto';
import { DR_CHAIN_MAX_REVISIONS } from '@sqlsweep/contracts';
import { renderSchemaDdl } from '@sqlsweep/datasets';
import { sqlValueKey, type ExecutionResult } from '@sqlsweep/sql-sandbox';
import { parseFinalSql } from '../../parse-sql';
import { sqlSkeleton } from '../../sql/skeleton';
import { from, optionalSlot, slot, stagesOf, trainItemsOf } from '../../define-stage';
import { evidenceLine } from '../../llm-call';
import type { EstimateContext } from '../../stage-context';
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


const dr = stagesOf('dr-chain');

// ---- simplification (offline per training item, online per item): same prompt, temperature 1.0 by default

function simplification(name: string, scope: 'item' | 'train-items') {
  return dr.llm({
    name, version: 1, scope, template: templates.simplify, temperatureKnob: 'simplifyTemperature',
    // The simplification stage has no length knob: a simplified question is short.
    maxTokens: { fixed: 256 }, expectedOutputTokens: 30,
    render: (ctx) => ({ question: ctx.item.question }),
    parse: (response): Simplified => parseSimplifiedQuestion(response.output),
  });
}

/** Simplifies every training item's question, for the skeleton repository. */
export const trainSimplifyStage = simplification('dr-chain.train-simplify', 'train-items');
export const simplifyStage = simplification('dr-chain.simplify', 'item');

// ---- skeletons

export const trainSkeletonsStage = dr.compute({
  name: 'dr-chain.train-skeletons', role: 'retrieval', version: 1, scope: 'train-items',
  inputs: { simplified: optionalSlot<Simplified>() },
  run: async (ctx) => {
    const base = { itemId: ctx.item.itemId, dbId: ctx.item.dbId, question: ctx.item.question, sql: ctx.item.goldSql };
    const entries: RepositoryEntry[] = [{ ...base, variant: 'original', skeleton: questionSkeleton(ctx.item.question, ctx.schema) }];
    const simplified = ctx.inputs.simplified?.simplified ?? null;
    if (simplified) entries.push({ ...base, variant: 'simplified', skeleton: questionSkeleton(simplified, ctx.schema) });
    const output: TrainSkeletons = { entries };
    return { output };
  },
});

export const skeletonsStage = dr.compute({
  name: 'dr-chain.skeletons', role: 'retrieval', version: 1,
  inputs: { simplified: optionalSlot<Simplified>() },
  run: async (ctx) => {
    const simplified = ctx.inputs.simplified?.simplified ?? null;
    const output: ItemSkeletons = {
      original: questionSkeleton(ctx.item.question, ctx.schema),
      simplified: simplified === null ? null : questionSkeleton(simplified, ctx.schema),
      simplifiedQuestion: simplified,
    };
    return { output };
  },
});

// ---- retrieval: k1 distinct training items by S_o, then k2 more by S_r (by S_o again without simplification)

export const retrieveStage = dr.compute({
  name: 'dr-chain.retrieve', role: 'retrieval', version: 2, reads: ['k1', 'k2'],
  inputs: { skeletons: from(skeletonsStage), repository: trainItemsOf(trainSkeletonsStage) },
  run: async (ctx) => {
    const { skeletons, repository } = ctx.inputs;
    const docs: PooledDocument<RepositoryEntry>[] = [];
    for (const [trainId, out] of [...repository].sort(([a], [b]) => (a < b ? -1 : 1))) {
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
    const { k1, k2 } = ctx.params;
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
});

export function renderDemonstrations(demonstrations: ReadonlyArray<Pick<Demonstration, 'question' | 'sql'>>): string {
  if (!demonstrations.length) return '(none)';
  return demonstrations.map((d) => `Question: ${d.question}\nSQL: ${d.sql}`).join('\n\n');
}

/**
 * Before a run the demonstrations are unknown: the planner assumes k1 + k2 examples the size of the item's own
 * (k1 and k2 are `dr-chain.retrieve`'s, upstream: the planner gives them to the estimate).
 */
function standInDemonstrations(ctx: Pick<EstimateContext, 'item'> & { params: { k1?: number; k2?: number } }): string {
  const k = (ctx.params.k1 ?? 0) + (ctx.params.k2 ?? 0);
  return renderDemonstrations(Array.from({ length: k }, () => ({ question: ctx.item.question, sql: ctx.item.goldSql })));
}

// ---- generation (temperature 0.5)

export const generateStage = dr.llm({
  name: 'dr-chain.generate', version: 2, template: templates.generate, expectedOutputTokens: 60,
  inputs: { retrieve: from(retrieveStage) }, estimateReads: ['k1', 'k2'],
  render: (ctx, inputs) => ({
    schema: renderSchemaDdl(ctx.schema), demonstrations: inputs ? renderDemonstrations(inputs.retrieve.demonstrations) : standInDemonstrations(ctx),
    evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
  }),
  parse: (response): RevisionState => ({ ...parseFinalSql(response.output), revisions: 0 }),
});

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

/** Step i's feedback: runs the current query, stops the chain on a repeated result, else gathers related contents. */
function feedbackDefinition(iteration: number) {
  return dr.compute({
    name: `dr-chain.feedback.${iteration}`, role: 'sql', version: 1, reads: ['contentValues'],
    inputs: { current: slot<RevisionState>(), earlier: optionalSlot<Feedback>() },
    run: async (ctx) => {
      const { current, earlier } = ctx.inputs;
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
        sandbox: ctx.services.sandbox, dbPath: ctx.dbPath, deadlineMs: ctx.services.sqlDeadlineMs, valuesPerColumn: ctx.params.contentValues,
      });
      const output: Feedback = { ...carried, iteration, stopped: false, execution: describeExecution(current, result), resultKey: key, contents: contents.text };
      return { output };
    },
  });
}

type FeedbackStage = ReturnType<typeof feedbackDefinition>;

function explainDefinition(iteration: number, feedback: FeedbackStage) {
  return dr.llm({
    name: `dr-chain.explain.${iteration}`, version: 1, template: templates.explain, expectedOutputTokens: 80,
    inputs: { feedback: from(feedback) },
    skip: (ctx) => {
      const fb = ctx.inputs.feedback;
      if (fb.stopped || fb.sql === null) {
        const output: Explanation = { explanation: null, skipped: true };
        return { output };
      }
      return undefined;
    },
    // Estimated with the gold query as the one to explain.
    render: (ctx, inputs) => ({
      schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
      sql: inputs ? inputs.feedback.sql ?? '' : ctx.item.goldSql,
    }),
    parse: (response) => parseExplanation(response.output),
  });
}

function reviseDefinition(iteration: number, feedback: FeedbackStage, explain: ReturnType<typeof explainDefinition>) {
  return dr.llm({
    name: `dr-chain.revise.${iteration}`, version: 2, template: templates.revise, expectedOutputTokens: 60,
    inputs: { feedback: from(feedback), explanation: from(explain), retrieve: from(retrieveStage) }, estimateReads: ['k1', 'k2'],
    skip: (ctx) => {
      const fb = ctx.inputs.feedback;
      if (!fb.stopped) return undefined;
      const output: RevisionState = { sql: fb.sql, ...(fb.parseError ? { parseError: fb.parseError } : {}), revisions: fb.revisions, stopped: true };
      return { output };
    },
    render: (ctx, inputs) => ({
      schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
      ...(inputs ? {
        demonstrations: renderDemonstrations(inputs.retrieve.demonstrations),
        sql: inputs.feedback.sql ?? '-- (no query)',
        execution: inputs.feedback.execution,
        explanation: inputs.explanation.explanation ?? `(none: ${inputs.explanation.parseError ?? 'there was no query to explain'})`,
        contents: inputs.feedback.contents,
      } : {
        // Stand-ins of about the size of the real values.
        demonstrations: standInDemonstrations(ctx), sql: ctx.item.goldSql, execution: 'the query ran and returned 1 rows', explanation: ctx.item.question, contents: ctx.item.goldSql,
      }),
    }),
    parse: (response, ctx): RevisionState => {
      const fb = ctx.inputs.feedback;
      const parsed = parseFinalSql(response.output);
      if (parsed.sql !== null) return { sql: parsed.sql, revisions: fb.revisions + 1 };
      // An answer without SQL keeps the previous query: revision must not lose a prediction it had.
      return { sql: fb.sql, parseError: `revision ${fb.iteration} held no SQL (${parsed.parseError}); kept the previous query`, revisions: fb.revisions + 1 };
    },
  });
}

/** The revision chain unrolled to its most steps, built once so that graphs and the registry share each definition. */
const revisionSteps = Array.from({ length: DR_CHAIN_MAX_REVISIONS }, (_, k) => {
  const feedback = feedbackDefinition(k + 1);
  const explain = explainDefinition(k + 1, feedback);
  return { feedback, explain, revise: reviseDefinition(k + 1, feedback, explain) };
});

function step(iteration: number) {
  const found = revisionSteps[iteration - 1];
  if (!found) throw new Error(`dr-chain: revision step ${iteration} does not exist (steps 1 to ${DR_CHAIN_MAX_REVISIONS})`);
  return found;
}
/** Revision step i (1-based): feedback (compute), explanation (LLM), revision (LLM). */
export const feedbackStage = (iteration: number) => step(iteration).feedback;
export const explainStage = (iteration: number) => step(iteration).explain;
export const reviseStage = (iteration: number) => step(iteration).revise;
export const revisionStages = revisionSteps.flatMap((s) => [s.feedback, s.explain, s.revise]);

// ---- the prediction, with the revision counts as stage metrics

export const finalStage = dr.compute({
  name: 'dr-chain.final', role: 'sql', version: 1,
  inputs: { initial: from(generateStage), last: slot<RevisionState>() },
  run: async (ctx) => {
    const { initial, last } = ctx.inputs;
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
});
