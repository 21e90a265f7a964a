import type { DatabaseSchema } from '@sqlsweep/datasets';
import { from, optionalSlot, stagesOf, trainItemsOf } from '../../define-stage';
import { parseFinalSql, parseSqlAnswer } from '../../parse-sql';
import { linkingMetricEntries, linkingMetrics, touchedSchema } from '../../sql';
import type { GeneratedSql } from '../../stages/common';
import type { StageItem } from '../../stage-context';
import { evidenceLine } from '../../llm-call';
import { loadTemplate } from '../../template';
import { biFilter, namesInQuestion, resolveIdentifier, termMatches, type ResolvedIdentifier } from './linking';
import { needsPreselect, parseSelection, type SelectedSchema } from './preselect';
import { parseChosenIds, parseFunctions, parseQuestionTerms, parseStringList, SQL_FUNCTIONS } from './parse';
import { countColumns, renderForeignKeys, renderSchemaLines, schemaAsLinkingSet, subSchema, type ColumnId } from './schema-view';
import { selectDailShots, type DailShots } from './dail-shots';
import { underscoreSkeleton } from './sql-skeleton';
import { datasetOrder, ssQeCandidates, type StructureProfile } from './ss-qe';

export const templates = {
  preselect: loadTemplate('ucs-sql.preselect'),
  question: loadTemplate('ucs-sql.question'),
  content: loadTemplate('ucs-sql.content'),
  foreignKeys: loadTemplate('ucs-sql.foreign-keys'),
  structure: loadTemplate('ucs-sql.structure'),
  selectShots: loadTemplate('ucs-sql.select-shots'),
  skeleton: loadTemplate('ucs-sql.skeleton'),
  generate: loadTemplate('ucs-sql.generate'),
};

// ---- stage outputs -------------------------------------------------------------------------------------------

export interface PreselectOutput {
  /** The selector's sub-database: tables kept and, of each, the columns kept. */
  tables: string[];
  columns: ColumnId[];
  pruned: boolean;
  parseError?: string;
  /** `prefilter.{table,column}.{precision,recall,f1}` against the gold SQL, and `prefilter.columns` (Table 4, Fig. 7). */
  metrics: Record<string, number>;
}
export interface TermsOutput { content: string[]; structure: string[]; parseError?: string }
/** The content pipe's first call: candidate identifiers from the terms and evidence, resolved against the schema. */
export interface ContentCandidatesOutput { identified: ResolvedIdentifier[]; unknown: string[]; parseError?: string }
/** The content pipe's result, after the foreign-key step. */
export interface ContentOutput {
  /** Final identifiers as `table.column` (and bare table names): |I| of SS-QE's complexity. */
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
  return preselect ? subSchema(schema, preselect.tables, preselect.columns) : schema;
}

const quoteList = (xs: readonly string[]): string => (xs.length ? xs.map((x) => JSON.stringify(x)).join(', ') : '(none)');

/** A few-shot example as the prompts show it: question, evidence, then the answer. */
function renderExamples(examples: readonly Example[], answer: (e: Example) => string): string {
  if (examples.length === 0) return '';
  const blocks = examples.map((e) => `${e.evidence ? `Evidence: ${e.evidence}\n` : ''}Question: ${e.question}\n${answer(e)}`);
  return `### Examples\n${blocks.join('\n\n')}\n\n### Your task\n`;
}

// ---- pre-selection -------------------------------------------------------------------------------------------

/** The pre-filtered schema scored against the gold SQL's tables and columns (Table 4's "Pre-filtered" rows). */
function preselectOutput(item: StageItem, schema: DatabaseSchema, kept: SelectedSchema, pruned: boolean, parseError?: string): PreselectOutput {
  const selected = subSchema(schema, kept.tables, kept.columns);
  const m = linkingMetrics(schemaAsLinkingSet(selected), touchedSchema(item.goldSql, schema));
  return {
    tables: kept.tables, columns: kept.columns, pruned, ...(parseError ? { parseError } : {}),
    metrics: { ...linkingMetricEntries('prefilter', m), 'prefilter.columns': countColumns(selected) },
  };
}

/**
 * MAC-SQL's selector, the paper's pre-processing: the LLM drops irrelevant tables and keeps the relevant columns of
 * wide tables. A schema MAC-SQL would leave alone (see `needsPreselect`) passes through without a call; the
 * pre-filtered schema is scored either way. For the target, or (SS-QE's Algorithm 1, line 5, which runs the
 * question and transitional stages on every training question, pre-processing included) for every training item.
 */
const preselectStageNamed = (name: string, scope: 'item' | 'train-items') => s.llm({
  name, version: 2, scope, template: templates.preselect, reads: ['preselectAboveColumns', 'preselectAboveAverageColumns'], expectedOutputTokens: 60,
  render: (ctx) => ({ schema: renderSchemaLines(ctx.schema), foreign_keys: renderForeignKeys(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question }),
  skip: (ctx) => {
    if (needsPreselect(ctx.schema, ctx.params.preselectAboveColumns, ctx.params.preselectAboveAverageColumns)) return undefined;
    return { output: preselectOutput(ctx.item, ctx.schema, schemaAsLinkingSet(ctx.schema), false) };
  },
  skipsFor: (ctx) => !needsPreselect(ctx.schema, ctx.params.preselectAboveColumns, ctx.params.preselectAboveAverageColumns),
  parse: (response, ctx): PreselectOutput => {
    const selection = parseSelection(response.output, ctx.schema);
    if (!selection.ok) return preselectOutput(ctx.item, ctx.schema, schemaAsLinkingSet(ctx.schema), false, selection.error);
    return preselectOutput(ctx.item, ctx.schema, selection.value, selection.value.columns.length < countColumns(ctx.schema));
  },
});
export const preselectStage = preselectStageNamed('ucs-sql.preselect', 'item');
export const trainPreselectStage = preselectStageNamed('ucs-sql.train-preselect', 'train-items');

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

/**
 * Content pipe, first call: the LLM turns the content terms (with the evidence) into candidate identifiers, by exact
 * name where one matches and by column description otherwise. Identifiers the schema lacks are kept apart (`unknown`).
 * Training questions see their pre-filtered schema too, so that |I| is counted on the same view for both.
 */
const contentStageNamed = (name: string, scope: 'item' | 'train-items', question: typeof questionStage) => s.llm({
  name, version: 2, scope, template: templates.content, expectedOutputTokens: 40,
  inputs: { terms: from(question), preselect: optionalSlot<PreselectOutput>() },
  render: (ctx, inputs) => ({
    schema: renderSchemaLines(inputs ? preFiltered(ctx.schema, inputs.preselect) : ctx.schema),
    content_terms: quoteList(inputs?.terms.content ?? []), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
  }),
  parse: (response, ctx): ContentCandidatesOutput => {
    const list = parseStringList(response.output, 'schema identifiers');
    if (!list.ok) return { identified: [], unknown: [], parseError: list.error };
    const resolved = list.value.map((raw) => resolveIdentifier(raw, preFiltered(ctx.schema, ctx.inputs.preselect)));
    return { identified: resolved.filter((r) => r.kind !== 'unknown'), unknown: resolved.flatMap((r) => (r.kind === 'unknown' ? [r.raw] : [])) };
  },
});
export const contentStage = contentStageNamed('ucs-sql.content', 'item', questionStage);
export const trainContentStage = contentStageNamed('ucs-sql.train-content', 'train-items', trainQuestionStage);

const identifierText = (r: ResolvedIdentifier): string => (r.kind === 'column' ? `${r.column.table}.${r.column.column}` : r.kind === 'table' ? r.table : r.raw);

/** The content pipe's result when its first answer was unusable: the pre-filtered schema stands in, scored. */
function contentFallback(item: StageItem, fullSchema: DatabaseSchema, schema: DatabaseSchema, parseError: string): ContentOutput {
  const m = linkingMetrics(schemaAsLinkingSet(schema), touchedSchema(item.goldSql, fullSchema));
  return { identifiers: [], biFiltered: null, unknown: [], parseError, metrics: { ...linkingMetricEntries('linking', m), 'linking.columns': countColumns(schema) } };
}

/**
 * The final identifiers: the candidates ∪ the foreign-key identifiers, both from the LLM. With `linkingCodeAdditions`
 * (not in the paper) the code adds exact term and question-name matches, declared foreign keys and primary keys.
 * Metrics: the bi-filtered schema against the gold SQL's tables and columns (the paper's Table 4).
 */
function finalContent(
  item: StageItem, fullSchema: DatabaseSchema, schema: DatabaseSchema, candidates: ContentCandidatesOutput,
  foreignKeys: readonly ResolvedIdentifier[], terms: readonly string[], codeAdditions: boolean, parseError?: string,
): ContentOutput {
  const codeAdded = codeAdditions ? [...termMatches(terms, schema), ...namesInQuestion(item.question, schema)] : [];
  const linked = biFilter([...candidates.identified, ...foreignKeys, ...codeAdded], schema, { codeAdditions });
  const m = linkingMetrics(linked, touchedSchema(item.goldSql, fullSchema));
  return {
    identifiers: [...linked.tables, ...linked.columns.map((c) => `${c.table}.${c.column}`)],
    biFiltered: linked,
    unknown: candidates.unknown,
    ...(parseError ? { parseError } : {}),
    metrics: { ...linkingMetricEntries('linking', m), 'linking.columns': linked.columns.length },
  };
}

/**
 * Content pipe, foreign-key expansion (the paper's "Foreign Keys Combination"): the LLM names the foreign keys that
 * join the candidates' tables; their columns join the candidate set, giving the final identifiers and the bi-filtered
 * schema. Skipped when the first call's answer was unusable (the pre-filtered schema stands in).
 */
const foreignKeysStageNamed = (name: string, scope: 'item' | 'train-items', content: typeof contentStage, question: typeof questionStage) => s.llm({
  name, version: 1, scope, template: templates.foreignKeys, reads: ['linkingCodeAdditions'], expectedOutputTokens: 30,
  inputs: { content: from(content), terms: from(question), preselect: optionalSlot<PreselectOutput>() },
  render: (ctx, inputs) => {
    const schema = inputs ? preFiltered(ctx.schema, inputs.preselect) : ctx.schema;
    return {
      schema: renderSchemaLines(schema), foreign_keys: renderForeignKeys(schema),
      candidates: quoteList((inputs?.content.identified ?? []).map(identifierText)), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
    };
  },
  skip: (ctx) => {
    const { content: candidates, preselect } = ctx.inputs;
    if (!candidates.parseError) return undefined;
    return { output: contentFallback(ctx.item, ctx.schema, preFiltered(ctx.schema, preselect), candidates.parseError) };
  },
  parse: (response, ctx): ContentOutput => {
    const schema = preFiltered(ctx.schema, ctx.inputs.preselect);
    const list = parseStringList(response.output, 'foreign-key identifiers');
    const foreignKeys = list.ok ? list.value.map((raw) => resolveIdentifier(raw, schema)).filter((r) => r.kind !== 'unknown') : [];
    return finalContent(ctx.item, ctx.schema, schema, ctx.inputs.content, foreignKeys, ctx.inputs.terms.content, ctx.params.linkingCodeAdditions,
      list.ok ? undefined : `foreign keys: ${list.error}`);
  },
});
export const foreignKeysStage = foreignKeysStageNamed('ucs-sql.foreign-keys', 'item', contentStage, questionStage);
export const trainForeignKeysStage = foreignKeysStageNamed('ucs-sql.train-foreign-keys', 'train-items', trainContentStage, trainQuestionStage);

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
    trainContent: trainItemsOf(trainForeignKeysStage), trainStructure: trainItemsOf(trainStructureStage),
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
  name: 'ucs-sql.skeleton', version: 2, template: templates.skeleton, expectedOutputTokens: 40,
  inputs: { structure: optionalSlot<StructureOutput>(), terms: optionalSlot<TermsOutput>(), shots: optionalSlot<ShotsOutput>() },
  render: (ctx, inputs) => skeletonValues(ctx.item, inputs ?? {}),
  parse: (response): SkeletonOutput => {
    const parsed = parseSqlAnswer(response.output, { expect: 'skeleton' });
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
  name: 'ucs-sql.generate', version: 2, template: templates.generate, expectedOutputTokens: 60,
  inputs: {
    preselect: optionalSlot<PreselectOutput>(), content: optionalSlot<ContentOutput>(), structure: optionalSlot<StructureOutput>(),
    terms: optionalSlot<TermsOutput>(), shots: optionalSlot<ShotsOutput>(), skeleton: optionalSlot<SkeletonOutput>(),
  },
  render: (ctx, inputs) => generateValues(ctx.item, ctx.schema, inputs ?? {}),
  parse: (response): GeneratedSql => parseFinalSql(response.output),
});
