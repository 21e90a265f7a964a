import type { DatabaseSchema } from '@sqlsweep/datasets';
import { parseGeneratedSql } from '../zero-shot';
import { parseSqlAnswer } from '../../parse-sql';
import { linkingMetricEntries, linkingMetrics, touchedSchema } from '../../sql';
import type { GeneratedSql } from '../../stages/common';
import { trainInputs, type ComputeStage, type EstimateContext, type LlmCall, type LlmStage, type StageContext } from '../../stage-context';
import { evidenceLine, templateCall } from '../../llm-call';
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

const input = <T>(ctx: StageContext, name: string): T | undefined => ctx.inputs[name] as T | undefined;

/** The pre-filtered schema: the selector's sub-database when the pre-selection stage ran, else the whole schema. */
function preFiltered(ctx: StageContext): DatabaseSchema {
  const pre = input<PreselectOutput>(ctx, 'preselect');
  return pre ? subSchema(ctx.schema, pre.tables) : ctx.schema;
}

const quoteList = (xs: readonly string[]): string => (xs.length ? xs.map((x) => JSON.stringify(x)).join(', ') : '(none)');

/** A few-shot example as the prompts show it: question, evidence, then the answer. */
function renderExamples(examples: readonly Example[], answer: (e: Example) => string): string {
  if (examples.length === 0) return '';
  const blocks = examples.map((e) => `${e.evidence ? `Evidence: ${e.evidence}\n` : ''}Question: ${e.question}\n${answer(e)}`);
  return `### Examples\n${blocks.join('\n\n')}\n\n### Your task\n`;
}

// ---- pre-selection -------------------------------------------------------------------------------------------

const preselectPrompt = (ctx: EstimateContext): LlmCall => templateCall(ctx, templates.preselect, {
  schema: renderSchemaLines(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
}, 30);

/** The selector has nothing to prune in a schema at or below `preselectAboveColumns` columns. */
const smallSchema = (ctx: EstimateContext): boolean => countColumns(ctx.schema) <= Number(ctx.params.preselectAboveColumns);

/** MAC-SQL-style selector; a schema at or below `preselectAboveColumns` columns passes through without a call. */
export const preselectStage: LlmStage = {
  kind: 'llm',
  skip: (ctx) => {
    if (!smallSchema(ctx)) return undefined;
    const output: PreselectOutput = { tables: ctx.schema.tables.map((t) => t.name), pruned: false, metrics: { 'prefilter.columns': countColumns(ctx.schema) } };
    return { output };
  },
  skipsFor: smallSchema,
  prompt: preselectPrompt,
  estimate: preselectPrompt,
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
};

// ---- question stage ------------------------------------------------------------------------------------------

const questionPrompt = (ctx: EstimateContext): LlmCall => templateCall(ctx, templates.question, { question: ctx.item.question }, 40);

export const questionStage: LlmStage = {
  kind: 'llm',
  prompt: questionPrompt,
  estimate: questionPrompt,
  parse: (response): TermsOutput => {
    const parsed = parseQuestionTerms(response.output);
    return parsed.ok ? parsed.value : { content: [], structure: [], parseError: parsed.error };
  },
};

// ---- transitional stage: content pipe ------------------------------------------------------------------------

function contentValues(ctx: EstimateContext, schema: DatabaseSchema, terms: readonly string[]): Record<string, string> {
  return { schema: renderSchemaLines(schema), content_terms: quoteList(terms), evidence_line: evidenceLine(ctx.item), question: ctx.item.question };
}

/**
 * Content pipe: the LLM maps terms (with evidence) to identifiers and picks columns by description; the code adds
 * exact matches in both directions and the foreign keys joining the chosen tables, giving the bi-filtered schema.
 * Metrics: the bi-filtered schema against the gold SQL's tables and columns (the paper's Table 4).
 */
export const contentStage: LlmStage = {
  kind: 'llm',
  prompt: (ctx) => templateCall(ctx, templates.content, contentValues(ctx, preFiltered(ctx), input<TermsOutput>(ctx, 'terms')?.content ?? []), 40),
  estimate: (ctx) => templateCall(ctx, templates.content, contentValues(ctx, ctx.schema, []), 40),
  parse: (response, ctx): ContentOutput => {
    const schema = preFiltered(ctx);
    const gold = touchedSchema(ctx.item.goldSql, ctx.schema);
    const list = parseStringList(response.output, 'schema identifiers');
    if (!list.ok) {
      const m = linkingMetrics({ tables: schema.tables.map((t) => t.name), columns: schema.tables.flatMap((t) => t.columns.map((c) => ({ table: t.name, column: c.name }))) }, gold);
      return { identifiers: [], biFiltered: null, unknown: [], parseError: list.error, metrics: { ...linkingMetricEntries('linking', m), 'linking.columns': countColumns(schema) } };
    }
    const resolved = list.value.map((raw) => resolveIdentifier(raw, schema));
    const terms = input<TermsOutput>(ctx, 'terms')?.content ?? [];
    const linked = biFilter([...resolved, ...termMatches(terms, schema), ...namesInQuestion(ctx.item.question, schema)], schema);
    const m = linkingMetrics(linked, gold);
    return {
      identifiers: [...linked.tables, ...linked.columns.map((c) => `${c.table}.${c.column}`)],
      biFiltered: linked,
      unknown: resolved.flatMap((r) => (r.kind === 'unknown' ? [r.raw] : [])),
      metrics: { ...linkingMetricEntries('linking', m), 'linking.columns': linked.columns.length },
    };
  },
};

// ---- transitional stage: structure pipe ----------------------------------------------------------------------

function structureValues(ctx: EstimateContext, terms: readonly string[]): Record<string, string> {
  return { vocabulary: SQL_FUNCTIONS.join(', '), structure_terms: quoteList(terms), evidence_line: evidenceLine(ctx.item), question: ctx.item.question };
}

export const structureStage: LlmStage = {
  kind: 'llm',
  prompt: (ctx) => templateCall(ctx, templates.structure, structureValues(ctx, input<TermsOutput>(ctx, 'terms')?.structure ?? []), 30),
  estimate: (ctx) => templateCall(ctx, templates.structure, structureValues(ctx, []), 30),
  parse: (response): StructureOutput => {
    const parsed = parseFunctions(response.output);
    return parsed.ok ? parsed.value : { functions: [], unknown: [], parseError: parsed.error };
  },
};

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
 * draft and the masked questions.
 */
export const shotCandidatesStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const k = Number(ctx.params.shots);
    const selection = String(ctx.params.shotSelection) as CandidatesOutput['selection'];
    const train = await ctx.services.dataset.trainItems();
    const byId = new Map(train.map((t) => [t.itemId, t]));
    let ids: string[];
    let relaxed = false;
    let dail: DailShots | undefined;
    if (selection === 'fixed') {
      ids = train.slice(0, k).map((t) => t.itemId);
    } else if (selection === 'dail') {
      const draftSql = input<GeneratedSql>(ctx, 'draft')?.sql ?? null;
      dail = await selectDailShots(ctx, train, draftSql, { k, threshold: Number(ctx.params.dailThreshold) });
      ids = dail.choices.map((c) => c.id);
    } else {
      const contents = trainInputs<ContentOutput>(ctx, 'trainContent');
      const structures = trainInputs<StructureOutput>(ctx, 'trainStructure');
      const training = datasetOrder(contents.keys()).map((id) => ({ id, ...profileOf(contents.get(id), structures.get(id)) }));
      const target = profileOf(input<ContentOutput>(ctx, 'content'), input<StructureOutput>(ctx, 'structure'));
      const found = ssQeCandidates(target, training, { theta1: Number(ctx.params.theta1), theta2: Number(ctx.params.theta2), k });
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
};

function selectValues(ctx: EstimateContext, k: number, sources: ReadonlyArray<{ id: string; question: string }>): Record<string, string> {
  return {
    k: String(k),
    format_example: JSON.stringify(sources.slice(0, k).map((s) => s.id)),
    source_questions: sources.map((s) => `${s.id}: ${s.question}`).join('\n'),
    question: ctx.item.question,
  };
}

/**
 * SS-QE line 14: the LLM picks the k candidates closest in question phrasing; skipped when there is no choice. Fixed
 * and DAIL shots never leave one (known before the run); SS-QE leaves none when it found at most k candidates.
 */
export const selectShotsStage: LlmStage = {
  kind: 'llm',
  skip: (ctx) => {
    const c = input<CandidatesOutput>(ctx, 'candidates')!;
    if (c.selection === 'ss-qe' && c.examples.length > c.k) return undefined;
    const output: ShotsOutput = { examples: c.examples.slice(0, c.k), chosenBy: 'all-candidates' };
    return { output };
  },
  // shotSelection is the candidates stage's parameter, in this stage's plan-time parameters through that input.
  skipsFor: (ctx) => ctx.params.shotSelection === 'fixed' || ctx.params.shotSelection === 'dail',
  prompt: (ctx) => {
    const c = input<CandidatesOutput>(ctx, 'candidates')!;
    return templateCall(ctx, templates.selectShots, selectValues(ctx, c.k, c.examples), 20);
  },
  estimate: (ctx) => {
    const k = Number(ctx.params.shots);
    const placeholders = Array.from({ length: 2 * k }, (_, i) => ({ id: `train-${i}`, question: ctx.item.question }));
    return templateCall(ctx, templates.selectShots, selectValues(ctx, k, placeholders), 20);
  },
  parse: (response, ctx): ShotsOutput => {
    const c = input<CandidatesOutput>(ctx, 'candidates')!;
    const chosen = parseChosenIds(response.output, c.examples.map((e) => e.id));
    if (!chosen.ok) return { examples: c.examples.slice(0, c.k), chosenBy: 'fallback', parseError: chosen.error };
    return { examples: chosen.value.slice(0, c.k).map((id) => c.examples.find((e) => e.id === id)!), chosenBy: 'llm' };
  },
};

// ---- SQL stage -----------------------------------------------------------------------------------------------

/** The structure hints the SQL stage gets: the structure pipe's functions, or the raw structure terms without it. */
function structureHint(ctx: StageContext): string {
  const structure = input<StructureOutput>(ctx, 'structure');
  if (structure) return `Candidate SQL functions: ${structure.functions.join(', ') || '(none)'}\n`;
  const terms = input<TermsOutput>(ctx, 'terms');
  return terms ? `Structure terms: ${quoteList(terms.structure)}\n` : '';
}

function shots(ctx: StageContext): Example[] {
  return input<ShotsOutput>(ctx, 'shots')?.examples ?? [];
}

function skeletonValues(ctx: StageContext): Record<string, string> {
  return {
    examples: renderExamples(shots(ctx), (e) => `SQL skeleton: ${underscoreSkeleton(e.sql)}`),
    hints: structureHint(ctx),
    evidence_line: evidenceLine(ctx.item),
    question: ctx.item.question,
  };
}

export const skeletonStage: LlmStage = {
  kind: 'llm',
  prompt: (ctx) => templateCall(ctx, templates.skeleton, skeletonValues(ctx), 40),
  estimate: (ctx) => templateCall(ctx, templates.skeleton, { examples: '', hints: '', evidence_line: evidenceLine(ctx.item), question: ctx.item.question }, 40),
  parse: (response): SkeletonOutput => {
    const parsed = parseSqlAnswer(response.output);
    return parsed.ok ? { skeleton: parsed.sql } : { skeleton: null, parseError: parsed.error };
  },
};

/** Content hints: the final identifiers, or the raw content terms when the transitional stage is ablated. */
function contentHint(ctx: StageContext): string {
  const content = input<ContentOutput>(ctx, 'content');
  if (content?.biFiltered) return `Recommended identifiers: ${content.identifiers.join(', ') || '(none)'}\n`;
  const terms = input<TermsOutput>(ctx, 'terms');
  return !content && terms ? `Content terms: ${quoteList(terms.content)}\n` : '';
}

/** The schema the SQL stage shows: the bi-filtered schema when the content pipe produced one, else the pre-filtered. */
function generationSchema(ctx: StageContext): DatabaseSchema {
  const content = input<ContentOutput>(ctx, 'content');
  return content?.biFiltered ? subSchema(ctx.schema, content.biFiltered.tables, content.biFiltered.columns) : preFiltered(ctx);
}

function generateValues(ctx: StageContext): Record<string, string> {
  const skeleton = input<SkeletonOutput>(ctx, 'skeleton')?.skeleton;
  return {
    examples: renderExamples(shots(ctx), (e) => `SQL: ${e.sql}`),
    schema: renderSchemaLines(generationSchema(ctx)),
    hints: contentHint(ctx) + structureHint(ctx),
    skeleton_block: skeleton
      ? `### SQL skeleton\nFill the SQL skeleton: replace each _ with a table name, a column name or a value, using the recommended identifiers first and the schema as fallback.\n${skeleton}\n\n`
      : '',
    evidence_line: evidenceLine(ctx.item),
    question: ctx.item.question,
  };
}

export const generateStage: LlmStage = {
  kind: 'llm',
  prompt: (ctx) => templateCall(ctx, templates.generate, generateValues(ctx), 60),
  estimate: (ctx) => templateCall(ctx, templates.generate, {
    examples: '', schema: renderSchemaLines(ctx.schema), hints: '', skeleton_block: '', evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
  }, 60),
  parse: (response): GeneratedSql => parseGeneratedSql(response.output),
};
