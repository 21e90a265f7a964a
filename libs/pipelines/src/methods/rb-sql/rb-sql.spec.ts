import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandVariants, parseSweepConfig, pipelineGrids, RB_SQL_MAX_CORRECTIONS, RB_SQL_MAX_SHOTS, type VariantSpec } from '@sqlsweep/contracts';
import { loadDataset, type DatabaseSchema } from '@sqlsweep/datasets';
import type { LlmResponse } from '@sqlsweep/llm';
import { keyItemStages } from '../../stage-keys';
import type { LlmStage, StageContext, StageItem } from '../../stage-context';
import { sqlSkeleton } from '../../sql/skeleton';
import { classifySqliteError } from './correction';
import { parseChainSql } from './generate';
import { stageImplementations } from '../../registry';
import { rbSqlMethod, rbSqlPipeline } from './index';
import { parseSubQuestions, renderShot, sqlValues, subQuestionValues } from './organize';
import { retrievalQuery } from './schema-filter';
import type { ChainSql, ExecutionCheck, FilteredSchema, SelectedShots, ShotDecomposition } from './types';

const repoRoot = join(__dirname, '..', '..', '..', '..', '..');

function variant(grid: Record<string, unknown> = {}): VariantSpec {
  const params = pipelineGrids['rb-sql'].parse(Object.fromEntries(Object.entries(grid).map(([k, v]) => [k, [v]])));
  const one = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, (v as unknown[])[0]])) as VariantSpec['params'];
  return { key: 'v', label: 'v', pipeline: 'rb-sql', model: 'sim-strong', sampleIndex: 0, params: one };
}

const response = (output: string): LlmResponse => ({
  output, usage: { inputTokens: 0, outputTokens: 0 } as LlmResponse['usage'], costUsd: 0, latencyMs: 0, cached: false, simulated: true, provider: 'sim', model: 'sim-strong',
});

describe('RB-SQL graph', () => {
  const names = (v: VariantSpec) => rbSqlPipeline.graph(v).map((n) => n.stage);

  it('runs TR, CR, SR, one decomposition per shot, generation and the unrolled correction rounds by default', () => {
    expect(names(variant())).toEqual([
      'gold', 'rb-sql.tables', 'rb-sql.columns', 'rb-sql.shots', 'rb-sql.decompose-1', 'rb-sql.decompose-2', 'rb-sql.decompose-3',
      'rb-sql.generate', 'rb-sql.check-1', 'rb-sql.correct-1', 'rb-sql.check-2', 'rb-sql.correct-2', 'rb-sql.check-3', 'rb-sql.correct-3', 'evaluate',
    ]);
    const evaluate = rbSqlPipeline.graph(variant()).at(-1)!;
    expect(evaluate).toMatchObject({ final: true, inputs: { gold: 'gold', prediction: 'rb-sql.correct-3' } });
  });

  it('drops the stages an ablation switches off', () => {
    expect(names(variant({ schemaFilter: false, shots: 0, errorCorrection: false }))).toEqual(['gold', 'rb-sql.generate', 'evaluate']);
    expect(names(variant({ skeletonOrganization: false, shots: 2, maxCorrections: 0 }))).toEqual(['gold', 'rb-sql.tables', 'rb-sql.columns', 'rb-sql.shots', 'rb-sql.generate-plain', 'evaluate']);
    const random = rbSqlPipeline.graph(variant({ shotSelection: 'random' })).find((n) => n.stage === 'rb-sql.shots')!;
    expect(random.reads).toContain('sampleIndex');
    const skeleton = rbSqlPipeline.graph(variant()).find((n) => n.stage === 'rb-sql.shots')!;
    expect(skeleton.reads).not.toContain('sampleIndex');
    const unfiltered = rbSqlPipeline.graph(variant({ schemaFilter: false })).find((n) => n.stage === 'rb-sql.correct-1')!;
    expect(unfiltered.reads).not.toContain('fullSchemaAfter');
    expect(rbSqlPipeline.graph(variant()).find((n) => n.stage === 'rb-sql.correct-1')!.reads).toContain('fullSchemaAfter');
  });

  it('shares TR between μ values, CR between shot counts, and a correction round between chain lengths', () => {
    const keys = (v: VariantSpec) => new Map(keyItemStages(rbSqlPipeline, v, { datasetVersion: 'd', itemId: 'dev-0' }).map((s) => [s.stage, s.key]));
    const a = keys(variant({ mu: 3 }));
    const b = keys(variant({ mu: 7 }));
    expect(a.get('rb-sql.tables')).toBe(b.get('rb-sql.tables'));
    expect(a.get('rb-sql.columns')).not.toBe(b.get('rb-sql.columns'));
    const c = keys(variant({ shots: 5 }));
    expect(c.get('rb-sql.columns')).toBe(keys(variant()).get('rb-sql.columns'));
    expect(c.get('rb-sql.shots')).not.toBe(keys(variant()).get('rb-sql.shots'));
    expect(keys(variant({ maxCorrections: 1 })).get('rb-sql.correct-1')).toBe(keys(variant({ maxCorrections: 3 })).get('rb-sql.correct-1'));
    expect(keys(variant({ theta: 11 })).get('rb-sql.shots')).toBe(keys(variant({ theta: 15 })).get('rb-sql.shots'));
  });

  it('registers a stage for every shot and round the grid allows, and the grid stops there', () => {
    const registered = (rbSqlMethod.stages as ReadonlyArray<{ name: string }>).map((s) => s.name);
    expect(registered).toEqual(expect.arrayContaining([`rb-sql.decompose-${RB_SQL_MAX_SHOTS}`, `rb-sql.correct-${RB_SQL_MAX_CORRECTIONS}`]));
    expect(pipelineGrids['rb-sql'].safeParse({ shots: [RB_SQL_MAX_SHOTS] }).success).toBe(true);
    expect(pipelineGrids['rb-sql'].safeParse({ shots: [RB_SQL_MAX_SHOTS + 1] }).success).toBe(false);
    expect(pipelineGrids['rb-sql'].safeParse({ maxCorrections: [RB_SQL_MAX_CORRECTIONS + 1] }).success).toBe(false);
    for (const n of rbSqlPipeline.graph(variant({ shots: RB_SQL_MAX_SHOTS, maxCorrections: RB_SQL_MAX_CORRECTIONS }))) {
      if (!['gold', 'evaluate'].includes(n.stage)) expect(registered).toContain(n.stage);
    }
  });

  it('ships sweep configs for the paper tables that validate', () => {
    const dir = join(repoRoot, 'configs/sweeps');
    const files = readdirSync(dir).filter((f) => /^rb-sql-.*\.yaml$/.test(f));
    expect(files).toEqual(expect.arrayContaining(['rb-sql-table4.yaml', 'rb-sql-table5.yaml']));
    for (const f of files) expect(expandVariants(parseSweepConfig(readFileSync(join(dir, f), 'utf8'), f)).length).toBeGreaterThan(0);
  });
});

describe('RB-SQL parsers', () => {
  it('reads numbered, bulleted and single-line sub-question lists, and records a failure', () => {
    expect(parseSubQuestions('Sure:\n1. Which airports exist?\n2) What is the highest?\n')).toEqual({ subQuestions: ['Which airports exist?', 'What is the highest?'] });
    expect(parseSubQuestions('- a first step\n* a second step')).toEqual({ subQuestions: ['a first step', 'a second step'] });
    expect(parseSubQuestions('What is the highest airport?')).toEqual({ subQuestions: ['What is the highest airport?'] });
    expect(parseSubQuestions('').parseError).toMatch(/no numbered list/);
  });

  it('takes the final SQL block of an organized answer, and records an answer without one', () => {
    const answer = 'Sub-questions:\n1. x\nSQL skeleton: SELECT [column_name] FROM [table_name]\nValues: (none)\nSQL:\n```sql\nSELECT a FROM t;\n```';
    expect(parseChainSql(answer)).toEqual({ sql: 'SELECT a FROM t' });
    expect(parseChainSql('I cannot answer that.')).toEqual({ sql: null, parseError: 'no SQL query found in the answer' });
  });

  it('takes the values step from the sub-questions: the literals a sub-question says, with its number', () => {
    const sql = "SELECT name FROM schools WHERE county = 'Alameda' AND kind = 'C' ORDER BY score DESC LIMIT 5";
    const subs = ['Which schools are in Alameda county?', 'Which 5 of them score best?'];
    expect(subQuestionValues(subs, sql)).toEqual([{ value: "'Alameda'", subQuestion: 1 }, { value: '5', subQuestion: 2 }]);
    const shot = { itemId: 't-1', dbId: 'schools', question: 'Top 5 schools in Alameda?', evidence: null, sql, skeleton: 'SELECT ...' };
    const rendered = renderShot(1, shot, { itemId: 't-1', subQuestions: subs });
    expect(rendered).toContain("Values: 'Alameda' (sub-question 1), 5 (sub-question 2)\n");
    expect(/^Values: .*$/m.exec(rendered)![0]).not.toContain("'C'");
    expect(renderShot(1, shot, { itemId: 't-1', subQuestions: ['Which schools are there?'] })).toContain('Values: (none in the sub-questions)\n');
  });

  it('retrieves with the question alone by default (the paper\'s q), with the evidence only when retrievalEvidence asks', () => {
    const item = { question: 'How many schools?', evidence: 'school refers to CDSCode' } as StageItem;
    expect(retrievalQuery({ item, params: { retrievalEvidence: pipelineGrids['rb-sql'].parse({}).retrievalEvidence[0] } })).toBe('How many schools?');
    expect(retrievalQuery({ item, params: { retrievalEvidence: true } })).toBe('How many schools? school refers to CDSCode');
    expect(rbSqlPipeline.graph(variant()).find((n) => n.stage === 'rb-sql.tables')!.reads).toContain('retrievalEvidence');
  });

  it('extracts literal values and classifies SQLite errors into the paper error classes', () => {
    expect(sqlValues("SELECT a FROM t WHERE b = 'x' AND c > 1.5 OR b = 'x'")).toEqual(["'x'", '1.5']);
    expect(classifySqliteError('no such column: T1.nme')).toBe('schema-linking');
    expect(classifySqliteError('near "FROM": syntax error')).toBe('syntax');
    expect(classifySqliteError('integer overflow')).toBe('internal');
  });
});

describe('RB-SQL prompts on minibench dev item 0', () => {
  let item: StageItem;
  let schema: DatabaseSchema;
  let train: StageItem[];
  let trainSchemas: Map<string, DatabaseSchema>;

  beforeAll(async () => {
    const dataset = await loadDataset({ format: 'minibench', path: join(repoRoot, 'data/minibench/dist') });
    const toStage = (i: (typeof dataset.items)[number]): StageItem => ({ itemId: i.id, dbId: i.dbId, question: i.question, evidence: i.evidence ?? null, goldSql: i.goldSql });
    item = toStage(dataset.items.find((i) => i.split === 'dev')!);
    train = dataset.items.filter((i) => i.split === 'train').map(toStage);
    schema = dataset.databases.find((d) => d.dbId === item.dbId)!;
    trainSchemas = new Map(dataset.databases.map((d) => [d.dbId, d]));
  });

  function context(params: VariantSpec['params'], inputs: Record<string, unknown>): StageContext {
    return { item, schema, params: { ...params, model: 'sim-strong', sampleIndex: 0, cacheNamespace: '' }, inputs } as unknown as StageContext;
  }

  function inputs(): Record<string, unknown> {
    const picked = train.slice(0, 2);
    const shots: SelectedShots = {
      selection: 'skeleton',
      shots: picked.map((t) => ({ itemId: t.itemId, dbId: t.dbId, question: t.question, evidence: t.evidence, sql: t.goldSql, skeleton: sqlSkeleton(t.goldSql, trainSchemas.get(t.dbId)) })),
    };
    const decompositions: ShotDecomposition[] = picked.map((t) => ({ itemId: t.itemId, subQuestions: [`Which rows does "${t.question}" need?`, t.question] }));
    const first = schema.tables[0];
    const filtered: FilteredSchema = { tables: [{ table: first.name, columns: first.columns.slice(0, 3).map((c) => c.name) }], metrics: {} };
    return { schema: filtered, shots, decomposition1: decompositions[0], decomposition2: decompositions[1] };
  }

  const llm = (name: string) => stageImplementations[name] as LlmStage;

  it('renders the shot decomposition prompt', () => {
    const v = variant({ shots: 2 }).params;
    const call = llm('rb-sql.decompose-2').prompt(context(v, inputs()));
    expect(call.messages[1].content).toContain(train[1].question);
    expect(call).toMatchSnapshot();
    const parsed = llm('rb-sql.decompose-2').parse(response('1. first?\n2. second?'), context(v, inputs()));
    expect(parsed).toEqual({ itemId: train[1].itemId, subQuestions: ['first?', 'second?'] });
  });

  it('renders the organized generation prompt with the filtered schema and the target question last', () => {
    const call = llm('rb-sql.generate').prompt(context(variant({ shots: 2 }).params, inputs()));
    const user = call.messages[1].content;
    expect(user.lastIndexOf(item.question)).toBeGreaterThan(user.lastIndexOf(train[1].question));
    expect(user).toContain('SQL skeleton: SELECT');
    expect(user).not.toContain(`CREATE TABLE ${schema.tables[1]?.name ?? '<none>'} (`);
    expect(call).toMatchSnapshot();
  });

  it('renders the plain generation prompt of the organization ablation', () => {
    const call = llm('rb-sql.generate-plain').prompt(context(variant({ shots: 2, skeletonOrganization: false }).params, inputs()));
    expect(call.messages[1].content).not.toContain('Sub-questions');
    expect(call).toMatchSnapshot();
  });

  it('renders a correction round, filtered schema first and the full schema after fullSchemaAfter rounds', () => {
    const previous: ChainSql = { sql: 'SELECT nme FROM airports', attempts: 0 };
    const check: ExecutionCheck = { previous, needsCorrection: true, errorClass: 'schema-linking', feedback: 'SQLite error: no such column: nme' };
    const base = inputs();
    const params = variant().params;
    const first = llm('rb-sql.correct-1').prompt(context(params, { check, schema: base.schema }));
    expect(first).toMatchSnapshot();
    const third = llm('rb-sql.correct-3').prompt(context(params, { check, schema: base.schema }));
    for (const t of schema.tables) expect(third.messages[1].content).toContain(t.name);
    const parsed = llm('rb-sql.correct-3').parse(response('MISSING SCHEMA\n```sql\nSELECT name FROM airports\n```'), context(params, { check, schema: base.schema }));
    expect(parsed).toEqual({ sql: 'SELECT name FROM airports', attempts: 1, fullSchema: true, fullSchemaShown: true, missingSchema: true, metrics: { 'rb-sql.correct.round3': 1 } });
  });

  it('skips a correction round without an LLM call when the check found nothing to correct', () => {
    const check: ExecutionCheck = { previous: { sql: 'SELECT 1', attempts: 1, metrics: { 'rb-sql.correct.round1': 1 } }, needsCorrection: false, errorClass: 'none', feedback: '' };
    const run = llm('rb-sql.correct-2').skip!(context(variant().params, { check }));
    expect(run?.output).toEqual({ sql: 'SELECT 1', attempts: 1, stopped: true, metrics: { 'rb-sql.correct.round2': 0 } });
    expect(llm('rb-sql.correct-2').skip!(context(variant().params, { check: { ...check, needsCorrection: true } }))).toBeUndefined();
  });
});
