import type { DatabaseSchema } from '@sqlsweep/datasets';
import { from, optionalSlot, stagesOf, trainItemsOf } from '../../define-stage';
import { parseGeneratedSql } from '../zero-shot';
import { parseSqlAnswer } from '../../parse-sql';
import { linkingMetricEntries, linkingMetrics, touchedSchema } from '../../sql';
import type { GeneratedSql } from '../../stages/common';
import type { StageItem } from '../../stage-context';
import { evidenceLine } from '../../llm-call';
import { loadTemplate } from '../../template';
import { biFilter, namesInQuestion, resolveIdentifier, termMatches } from './linking';
import { parseChosenIds, parseFunctions, parseQuestionTerms, parseStringList, SQL_FUNCTIONS } from './parse';
import { countColumns, renderSchemaLines, subSchema, type ColumnId } from './schema-view';
import { selectDailShots, type DailShots } from './dail-shots';
import { underscoreSkeleton } from './sql-skeleton';
import { datasetOrder, ssQeCandidates, type StructureProfile } from './ss-qe';

export const templates = {
  preselect: loadTemplate('ucs-sql.preselect'),
  question: loadTemplate('ucs-sql.question'),
  content: loadTemplate('ucs-sql.content'),
  structure: loadTemplate('ucs-sql.structure'),
  selectShots: loadTemplate('ucs-sql.select-shots'),
  skeleton: loadTemplate('ucs-sql.skeleton'),
  generate: loadTemplate('ucs-sql.generate'),
};

// ---- stage outputs -------------------------------------------------------------------------------------------

export interface PreselectOutput { tables: string[]; pruned: boolean; parseError?: string; metrics: Record<string, number> }
export interface TermsOutput { content: string[]; structure: string[]; parseError?: string }
export interface ContentOutput {
  /** Final identifiers as `table.column` (and bare table names). */
  identifiers: string[];
  /** The bi-filtered schema; null when the answer was unusable and the pre-filtered schema stands in. */
  biFiltered: { tables: string[]; columns: ColumnId[] } | null;
  unknown: string[];
  parseError?: string;
  metrics: Record<string, number>;
}
export interface StructureOutput { functions: string[]; unknown: string[]; parseError?: string }
export interface Example { id: string; question: string; evidence: string | null; sql: string }
export interface CandidatesOutput {
  selection: 'ss-qe' | 'fixed' | 'dail';
  k: number;
  examples: Example[];
  relaxed: boolean;
  /** DAIL only: the draft, the masked target question and the similarities of the chosen examples. */
  dail?: DailShots;
  metrics: Record<string, number>;
}
export interface ShotsOutput { examples: Example[]; chosenBy: 'llm' | 'all-candidates' | 'fallback'; parseError?: string }
export interface SkeletonOutput { skeleton: string | null; parseError?: string }

// ---- helpers -------------------------------------------------------------------------------------------------

const s = stagesOf('ucs-sql');

/** The pre-filtered schema: the selector's sub-database when the pre-selection stage ran, else the whole schema. */
function preFiltered(schema: DatabaseSchema, preselect: PreselectOutput | undefined): DatabaseSchema {
  return preselect ? subSchema(schema, preselect.tables) : schema;
}

const quoteList = (xs: readonly string[]): string => (xs.length ? xs.map((x) => JSON.stringify(x)).join(', ') : '(none)');

/** A few-shot example as the prompts show it: question, evidence, then the answer. */
function renderExamples(examples: readonly Example[], answer: (e: Example) => string): string {
  if (examples.length === 0) return '';
  const blocks = examples.map((e) => `${e.evidence ? `Evidence: ${e.evidence}\n` : ''}Question: ${e.question}\n${answer(e)}`);
  return `### Examples\n${blocks.join('\n\n')}\n\n### Your task\n`;
}

// ---- pre-selection -------------------------------------------------------------------------------------------

/** MAC-SQL-style selector; a schema at or below `preselectAboveColumns` columns passes through without a call. */
export const preselectStage = s.llm({
  name: 'ucs-sql.preselect', version: 1, template: templates.preselect, reads: ['preselectAboveColumns'], expectedOutputTokens: 30,
  render: (ctx) => ({ schema: renderSchemaLines(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question }),
  skip: (ctx) => {
    if (countColumns(ctx.schema) > ctx.params.preselectAboveColumns) return undefined;
    const output: PreselectOutput = { tables: ctx.schema.tables.map((t) => t.name), pruned: false, metrics: { 'prefilter.columns': countColumns(ctx.schema) } };
    return { output };
  },
  skipsFor: (ctx) => countColumns(ctx.schema) <= ctx.params.preselectAboveColumns,
  parse: (response, ctx): PreselectOutput => {
    const all = ctx.schema.tables.map((t) => t.name);
    const list = parseStringList(response.output, 'table names');
    const tables = list.ok ? list.value.map((t) => resolveIdentifier(t, ctx.schema)).flatMap((r) => (r.kind === 'table' ? [r.table] : [])) : [];
    if (tables.length === 0) {
      const parseError = list.ok ? `no known table among ${JSON.stringify(list.value)}` : list.error;
      return { tables: all, pruned: false, parseError, metrics: { 'prefilter.columns': countColumns(ctx.schema) } };
    }
    const kept = all.filter((t) => tables.includes(t));
    return { tables: kept, pruned: kept.length < all.length, metrics: { 'prefilter.columns': countColumns(subSchema(ctx.schema, kept)) } };
  },
});

// ---- question stage ------------------------------------------------------------------------------------------

/** The question stage, for the evaluated item or (SS-QE's Algorithm 1, line 5) for every training item. */
const questionStageNamed = (name: string, scope: 'item' | 'train-items') => s.llm({
  name, version: 1, scope, template: templates.question, expectedOutputTokens: 40,
  render: (ctx) => ({ question: ctx.item.question }),
  parse: (response): TermsOutput => {
    const parsed = parseQuestionTerms(response.output);
    return parsed.ok ? parsed.value : { content: [], structure: [], parseError: parsed.error };
  },
});
export const questionStage = questionStageNamed('ucs-sql.question', 'item');
export const trainQuestionStage = questionStageNamed('ucs-sql.train-question', 'train-items');

// ---- transitional stage: content pipe ------------------------------------------------------------------------

function contentValues(item: StageItem, schema: DatabaseSchema, terms: readonly string[]): Record<string, string> {
  return { schema: renderSchemaLines(schema), content_terms: quoteList(terms), evidence_line: evidenceLine(item), question: item.question };
}

/** `schema` is what the prompt showed (the pre-filtered schema); the gold columns are looked up in `fullSchema`. */
function parseContent(answer: string, item: StageItem, fullSchema: DatabaseSchema, schema: DatabaseSchema, terms: readonly string[]): ContentOutput {
  const gold = touchedSchema(item.goldSql, fullSchema);
  const list = parseStringList(answer, 'schema identifiers');
  if (!list.ok) {
    const m = linkingMetrics({ tables: schema.tables.map((t) => t.name), columns: schema.tables.flatMap((t) => t.columns.map((c) => ({ table: t.name, column: c.name }))) }, gold);
    return { identifiers: [], biFiltered: null, unknown: [], parseError: list.error, metrics: { ...linkingMetricEntries('linking', m), 'linking.columns': countColumns(schema) } };
  }
  const resolved = list.value.map((raw) => resolveIdentifier(raw, schema));
  const linked = biFilter([...resolved, ...termMatches(terms, schema), ...namesInQuestion(item.question, schema)], schema);
  const m = linkingMetrics(linked, gold);
  return {
    identifiers: [...linked.tables, ...linked.columns.map((c) => `${c.table}.${c.column}`)],
    biFiltered: linked,
    unknown: resolved.flatMap((r) => (r.kind === 'unknown' ? [r.raw] : [])),
    metrics: { ...linkingMetricEntries('linking', m), 'linking.columns': linked.columns.length },
  };
}

/**
 * Content pipe: the LLM maps terms (with evidence) to identifiers and picks columns by description; the code adds
 * exact matches in both directions and the foreign keys joining the chosen tables, giving the bi-filtered schema.
 * Metrics: the bi-filtered schema against the gold SQL's tables and columns (the paper's Table 4).
 */
export const contentStage = s.llm({
  name: 'ucs-sql.content', version: 1, template: templates.content, expectedOutputTokens: 40,
  inputs: { terms: from(questionStage), preselect: optionalSlot<PreselectOutput>() },
  render: (ctx, inputs) => contentValues(ctx.item, inputs ? preFiltered(ctx.schema, inputs.preselect) : ctx.schema, inputs?.terms.content ?? []),
  parse: (response, ctx) => parseContent(response.output, ctx.item, ctx.schema, preFiltered(ctx.schema, ctx.inputs.preselect), ctx.inputs.terms.content),
});

/** The content pipe over a training question (SS-QE's profiles), on its whole schema. */
export const trainContentStage = s.llm({
  name: 'ucs-sql.train-content', version: 1, scope: 'train-items', template: templates.content, expectedOutputTokens: 40,
  inputs: { terms: from(trainQuestionStage) },
  render: (ctx, inputs) => contentValues(ctx.item, ctx.schema, inputs?.terms.content ?? []),
  parse: (response, ctx) => parseContent(response.output, ctx.item, ctx.schema, ctx.schema, ctx.inputs.terms.content),
});

// ---- transitional stage: structure pipe ----------------------------------------------------------------------

function structureValues(item: StageItem, terms: readonly string[]): Record<string, string> {
  return { vocabulary: SQL_FUNCTIONS.join(', '), structure_terms: quoteList(terms), evidence_line: evidenceLine(item), question: item.question };
}

function parseStructure(answer: string): StructureOutput {
  const parsed = parseFunctions(answer);
  return parsed.ok ? parsed.value : { functions: [], unknown: [], parseError: parsed.error };
}

export const structureStage = s.llm({
  name: 'ucs-sql.structure', version: 1, template: templates.structure, expectedOutputTokens: 30,
  inputs: { terms: from(questionStage) },
  render: (ctx, inputs) => structureValues(ctx.item, inputs?.terms.structure ?? []),
  parse: (response) => parseStructure(response.output),
});

export const trainStructureStage = s.llm({
  name: 'ucs-sql.train-structure', version: 1, scope: 'train-items', template: templates.structure, expectedOutputTokens: 30,
  inputs: { terms: from(trainQuestionStage) },
  render: (ctx, inputs) => structureValues(ctx.item, inputs?.terms.structure ?? []),
  parse: (response) => parseStructure(response.output),
});

// ---- SS-QE few-shot selection --------------------------------------------------------------------------------

function profileOf(content: ContentOutput | undefined, structure: StructureOutput | undefined): Omit<StructureProfile, 'id'> {
  const functions = structure?.functions ?? [];
  return { functions, complexity: (content?.identifiers.length ?? 0) + functions.length };
}

/** Metrics of a DAIL choice: how many chosen met τ, and the mean similarities of the chosen. */
function dailMetrics(d: DailShots): Record<string, number> {
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    'shots.queryMatched': d.choices.filter((c) => c.queryMatched).length,
    'shots.meanQuestionSimilarity': mean(d.choices.map((c) => c.questionSimilarity)),
    'shots.meanQuerySimilarity': mean(d.choices.map((c) => c.querySimilarity)),
    'shots.draftParsed': d.draftSql === null ? 0 : 1,
  };
}

/**
 * Candidate shots (compute): SS-QE's structural filter over the memoized training profiles (Algorithm 1 lines 4-13,
 * up to 2k), the first k training questions for the fixed-shot baseline, or DAIL's k (Table 5) from the zero-shot
 * draft and the masked questions. Each selection reads only its own knobs and inputs: the graph leaves the others
 * out of the instance (`without`), so they read as absent.
 */
export const shotCandidatesStage = s.compute({
  name: 'ucs-sql.shot-candidates', role: 'retrieval', version: 1,
  reads: ['shots', 'shotSelection', 'theta1', 'theta2', 'dailThreshold'],
  inputs: {
    content: optionalSlot<ContentOutput>(), structure: optionalSlot<StructureOutput>(),
    trainContent: trainItemsOf(trainContentStage), trainStructure: trainItemsOf(trainStructureStage),
    draft: optionalSlot<GeneratedSql>(),
  },
  run: async (ctx) => {
    const { shots: k, shotSelection: selection } = ctx.params;
    const train = await ctx.services.dataset.trainItems();
    const byId = new Map(train.map((t) => [t.itemId, t]));
    let ids: string[];
    let relaxed = false;
    let dail: DailShots | undefined;
    if (selection === 'fixed') {
      ids = train.slice(0, k).map((t) => t.itemId);
    } else if (selection === 'dail') {
      dail = await selectDailShots(ctx, train, ctx.inputs.draft?.sql ?? null, { k, threshold: ctx.params.dailThreshold });
      ids = dail.choices.map((c) => c.id);
    } else {
      const { trainContent, trainStructure } = ctx.inputs;
      const training = datasetOrder(trainContent.keys()).map((id) => ({ id, ...profileOf(trainContent.get(id), trainStructure.get(id)) }));
      const target = profileOf(ctx.inputs.content, ctx.inputs.structure);
      const found = ssQeCandidates(target, training, { theta1: ctx.params.theta1, theta2: ctx.params.theta2, k });
      ids = found.ids;
      relaxed = found.relaxed;
    }
    const examples = ids.map((id) => {
      const t = byId.get(id);
      if (!t) throw new Error(`ucs-sql shot candidates: training item ${id} is not in the dataset's train split`);
      return { id, question: t.question, evidence: t.evidence, sql: t.goldSql };
    });
    const metrics = { 'shots.candidates': examples.length, 'shots.relaxed': relaxed ? 1 : 0, ...(dail ? dailMetrics(dail) : {}) };
    const output: CandidatesOutput = { selection, k, examples, relaxed, ...(dail ? { dail } : {}), metrics };
    return { output };
  },
});

function selectValues(item: StageItem, k: number, sources: ReadonlyArray<{ id: string; question: string }>): Record<string, string> {
  return {
    k: String(k),
    format_example: JSON.stringify(sources.slice(0, k).map((s) => s.id)),
    source_questions: sources.map((s) => `${s.id}: ${s.question}`).join('\n'),
    question: item.question,
  };
}

/**
 * SS-QE line 14: the LLM picks the k candidates closest in question phrasing; skipped when there is no choice. Fixed
 * and DAIL shots never leave one (known before the run); SS-QE leaves none when it found at most k candidates.
 */
export const selectShotsStage = s.llm({
  name: 'ucs-sql.select-shots', version: 1, template: templates.selectShots, expectedOutputTokens: 20,
  inputs: { candidates: from(shotCandidatesStage) },
  // The candidates stage's knobs: before the run they stand in for its output (up to 2k candidates) and its choice.
  estimateReads: ['shots', 'shotSelection'],
  skip: (ctx) => {
    const c = ctx.inputs.candidates;
    if (c.selection === 'ss-qe' && c.examples.length > c.k) return undefined;
    const output: ShotsOutput = { examples: c.examples.slice(0, c.k), chosenBy: 'all-candidates' };
    return { output };
  },
  skipsFor: (ctx) => ctx.params.shotSelection === 'fixed' || ctx.params.shotSelection === 'dail',
  render: (ctx, inputs) => {
    if (inputs) return selectValues(ctx.item, inputs.candidates.k, inputs.candidates.examples);
    const k = ctx.params.shots ?? 0;
    return selectValues(ctx.item, k, Array.from({ length: 2 * k }, (_, i) => ({ id: `train-${i}`, question: ctx.item.question })));
  },
  parse: (response, ctx): ShotsOutput => {
    const c = ctx.inputs.candidates;
    const chosen = parseChosenIds(response.output, c.examples.map((e) => e.id));
    if (!chosen.ok) return { examples: c.examples.slice(0, c.k), chosenBy: 'fallback', parseError: chosen.error };
    return { examples: chosen.value.slice(0, c.k).map((id) => c.examples.find((e) => e.id === id)!), chosenBy: 'llm' };
  },
});

// ---- SQL stage -----------------------------------------------------------------------------------------------

/** What the SQL stage's hints come from; each is absent when its stage is ablated (and all are, estimating). */
interface Hints {
  readonly preselect?: PreselectOutput;
  readonly content?: ContentOutput;
  readonly structure?: StructureOutput;
  readonly terms?: TermsOutput;
  readonly shots?: ShotsOutput;
  readonly skeleton?: SkeletonOutput;
}

/** The structure hints the SQL stage gets: the structure pipe's functions, or the raw structure terms without it. */
function structureHint({ structure, terms }: Hints): string {
  if (structure) return `Candidate SQL functions: ${structure.functions.join(', ') || '(none)'}\n`;
  return terms ? `Structure terms: ${quoteList(terms.structure)}\n` : '';
}

function skeletonValues(item: StageItem, hints: Hints): Record<string, string> {
  return {
    examples: renderExamples(hints.shots?.examples ?? [], (e) => `SQL skeleton: ${underscoreSkeleton(e.sql)}`),
    hints: structureHint(hints),
    evidence_line: evidenceLine(item),
    question: item.question,
  };
}

export const skeletonStage = s.llm({
  name: 'ucs-sql.skeleton', version: 1, template: templates.skeleton, expectedOutputTokens: 40,
  inputs: { structure: optionalSlot<StructureOutput>(), terms: optionalSlot<TermsOutput>(), shots: optionalSlot<ShotsOutput>() },
  render: (ctx, inputs) => skeletonValues(ctx.item, inputs ?? {}),
  parse: (response): SkeletonOutput => {
    const parsed = parseSqlAnswer(response.output);
    return parsed.ok ? { skeleton: parsed.sql } : { skeleton: null, parseError: parsed.error };
  },
});

/** Content hints: the final identifiers, or the raw content terms when the transitional stage is ablated. */
function contentHint({ content, terms }: Hints): string {
  if (content?.biFiltered) return `Recommended identifiers: ${content.identifiers.join(', ') || '(none)'}\n`;
  return !content && terms ? `Content terms: ${quoteList(terms.content)}\n` : '';
}

/** The schema the SQL stage shows: the bi-filtered schema when the content pipe produced one, else the pre-filtered. */
function generationSchema(schema: DatabaseSchema, { content, preselect }: Hints): DatabaseSchema {
  return content?.biFiltered ? subSchema(schema, content.biFiltered.tables, content.biFiltered.columns) : preFiltered(schema, preselect);
}

function generateValues(item: StageItem, schema: DatabaseSchema, hints: Hints): Record<string, string> {
  const skeleton = hints.skeleton?.skeleton;
  return {
    examples: renderExamples(hints.shots?.examples ?? [], (e) => `SQL: ${e.sql}`),
    schema: renderSchemaLines(generationSchema(schema, hints)),
    hints: contentHint(hints) + structureHint(hints),
    skeleton_block: skeleton
      ? `### SQL skeleton\nFill the SQL skeleton: replace each _ with a table name, a column name or a value, using the recommended identifiers first and the schema as fallback.\n${skeleton}\n\n`
      : '',
    evidence_line: evidenceLine(item),
    question: item.question,
  };
}

export const generateStage = s.llm({
  name: 'ucs-sql.generate', version: 1, template: templates.generate, expectedOutputTokens: 60,
  inputs: {
    preselect: optionalSlot<PreselectOutput>(), content: optionalSlot<ContentOutput>(), structure: optionalSlot<StructureOutput>(),
    terms: optionalSlot<TermsOutput>(), shots: optionalSlot<ShotsOutput>(), skeleton: optionalSlot<SkeletonOutput>(),
  },
  render: (ctx, inputs) => generateValues(ctx.item, ctx.schema, inputs ?? {}),
  parse: (response): GeneratedSql => parseGeneratedSql(response.output),
});
