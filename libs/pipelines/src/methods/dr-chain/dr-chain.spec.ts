import { join } from 'node:path';
import { expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { loadDataset, type Dataset, type DatabaseSchema } from '@sqlsweep/datasets';
import type { LlmResponse } from '@sqlsweep/llm';
import { ensureBundledEncoderForTests, openEncoder, type Encoder } from '@sqlsweep/retrieval';
import { SandboxPool } from '@sqlsweep/sql-sandbox';
import type { RetrievalServices, StageContext, StageItem } from '../../stage-context';
import {
  drChainPipeline, explainStage, feedbackStage, finalStage, generateStage, retrieveStage, reviseStage, simplifyStage, skeletonsStage,
  trainSimplifyStage, trainSkeletonsStage,
} from './index';
import type { Feedback, Retrieved, RevisionState, TrainSkeletons } from './stages';

const repoRoot = join(__dirname, '..', '..', '..', '..', '..');

function variant(grid: string) {
  const config = parseSweepConfig(`name: t\ndataset: minibench\nmodels: [sim-strong]\npipelines:\n  - pipeline: dr-chain\n    grid: ${grid}\n`, 'test.yaml');
  return expandVariants(config)[0]!;
}
const drChainGraph = (v: ReturnType<typeof variant>) => drChainPipeline.graph(v);
const stagesOf = (grid: string) => drChainGraph(variant(grid)).map((n) => `${n.stage}(${Object.values(n.inputs).join(',')})`);
const response = (output: string) => ({ output }) as LlmResponse;

describe('dr-chain graph', () => {
  it('builds the repository per training item, then retrieval, generation and N_max revision steps', () => {
    expect(stagesOf('{ maxRevisions: [2] }')).toEqual([
      'gold()',
      'dr-chain.train-simplify()',
      'dr-chain.train-skeletons(dr-chain.train-simplify)',
      'dr-chain.simplify()',
      'dr-chain.skeletons(dr-chain.simplify)',
      'dr-chain.retrieve(dr-chain.skeletons,dr-chain.train-skeletons[*])',
      'dr-chain.generate(dr-chain.retrieve)',
      'dr-chain.feedback.1(dr-chain.generate)',
      'dr-chain.explain.1(dr-chain.feedback.1)',
      'dr-chain.revise.1(dr-chain.feedback.1,dr-chain.explain.1,dr-chain.retrieve)',
      'dr-chain.feedback.2(dr-chain.revise.1,dr-chain.feedback.1)',
      'dr-chain.explain.2(dr-chain.feedback.2)',
      'dr-chain.revise.2(dr-chain.feedback.2,dr-chain.explain.2,dr-chain.retrieve)',
      'dr-chain.final(dr-chain.generate,dr-chain.revise.2)',
      'evaluate(gold,dr-chain.final)',
    ]);
    const graph = drChainGraph(variant('{}'));
    expect(graph.filter((n) => n.stage.startsWith('dr-chain.revise.'))).toHaveLength(3);
    expect(graph.filter((n) => n.scope === 'train-items').map((n) => n.stage)).toEqual([trainSimplifyStage.name, trainSkeletonsStage.name]);
  });

  it('drops the simplification stages (online and offline) and the revision chain for the ablations', () => {
    expect(stagesOf('{ simplification: [false], revision: [false] }')).toEqual([
      'gold()',
      'dr-chain.train-skeletons()',
      'dr-chain.skeletons()',
      'dr-chain.retrieve(dr-chain.skeletons,dr-chain.train-skeletons[*])',
      'dr-chain.generate(dr-chain.retrieve)',
      'dr-chain.final(dr-chain.generate,dr-chain.generate)',
      'evaluate(gold,dr-chain.final)',
    ]);
  });

  it('has every LLM stage read the model, sample index and cache namespace, and simplification its own temperature', () => {
    for (const node of drChainGraph(variant('{}')).filter((n) => n.role === 'llm')) {
      expect(node.reads).toEqual(expect.arrayContaining(['model', 'sampleIndex', 'cacheNamespace']));
      expect(node.reads).toContain(node.stage.includes('simplify') ? 'simplifyTemperature' : 'temperature');
      expect(node.template).toBeDefined();
    }
  });

  it('defaults to the paper: k1 = k2 = 4, generation 0.5, simplification 1.0', () => {
    expect(variant('{}').params).toMatchObject({ k1: 4, k2: 4, temperature: 0.5, simplifyTemperature: 1, simplification: true, revision: true });
  });
});

describe('dr-chain on minibench (prompts, parsing, feedback, retrieval)', () => {
  let dataset: Dataset;
  let schema: DatabaseSchema;
  let item: StageItem;
  let sandbox: SandboxPool;
  let encoder: Encoder;
  const params = { ...variant('{}').params, model: 'sim-strong', sampleIndex: 0, cacheNamespace: '' } as Record<string, string | number | boolean>;
  const demonstrations: Retrieved = {
    demonstrations: [
      { itemId: 'train-1', dbId: 'other', question: 'What is the oldest ship?', sql: 'SELECT name FROM ship ORDER BY built_year LIMIT 1', via: 'original', score: 0.9 },
      { itemId: 'train-2', dbId: 'other', question: 'Which port has the most berths?', sql: 'SELECT name FROM port ORDER BY berths DESC LIMIT 1', via: 'simplified', score: 0.8 },
    ],
    metrics: {},
  };

  beforeAll(async () => {
    dataset = await loadDataset({ format: 'minibench', path: join(repoRoot, 'data/minibench/dist') });
    const first = dataset.items.find((i) => i.split === 'dev')!;
    item = { itemId: first.id, dbId: first.dbId, question: first.question, evidence: first.evidence ?? null, goldSql: first.goldSql };
    schema = dataset.databases.find((d) => d.dbId === first.dbId)!;
    sandbox = new SandboxPool({ size: 1 });
    encoder = await openEncoder({ modelDir: ensureBundledEncoderForTests(), intraOpNumThreads: 1 });
  });
  afterAll(async () => {
    await sandbox?.close();
    await encoder?.close();
  });

  const retrieval = (): RetrievalServices => ({
    encoder: async () => encoder, index: async () => { throw new Error('dr-chain uses its pooled index'); }, chunks: async (_key, chunk) => chunk(),
  });
  const ctx = (inputs: Record<string, unknown>, overrides: Partial<StageContext> = {}) => ({
    item, schema, params, inputs, dbPath: schema.sqlitePath, semantics: 'bird', datasetVersion: 'test', priority: 'interactive',
    services: { sandbox, sqlDeadlineMs: 10_000, retrieval: retrieval(), dataset: undefined as never }, ...overrides,
  }) as StageContext;

  const feedback = (over: Partial<Feedback> = {}): Feedback => ({
    iteration: 1, sql: 'SELECT name FROM airports ORDER BY elevation_ft DESC LIMIT 1', revisions: 0, stopped: false,
    execution: 'the query ran and returned 1 rows (columns: name); first rows: ["Denver"]', resultKey: 'ok:x',
    contents: 'airports.name: "Denver", "Heathrow"', ...over,
  });

  it.each([
    [simplifyStage.name, simplifyStage, {}],
    [generateStage.name, generateStage, { retrieve: demonstrations }],
    [explainStage(1).name, explainStage(1), { feedback: feedback() }],
    [reviseStage(1).name, reviseStage(1), { feedback: feedback(), explanation: { explanation: 'It returns the highest airport.' }, retrieve: demonstrations }],
  ])('renders the %s prompt (snapshot), the target question last', (_name, { implementation: stage }, inputs) => {
    const call = stage.prompt(ctx(inputs));
    expect(call.messages).toMatchSnapshot();
    const text = call.messages.map((m) => m.content).join('\n');
    const questionLines = text.split('\n').filter((l) => /^Question: /.test(l));
    expect(questionLines[questionLines.length - 1]).toBe(`Question: ${item.question}`);
    expect(call.temperature).toBe(_name === simplifyStage.name ? 1 : 0.5);
    expect(stage.estimate!(ctx(inputs)).messages.length).toBe(call.messages.length);
  });

  it('parses a simplified question forgivingly and records an empty answer as a parse error', () => {
    const parse = (s: string) => simplifyStage.implementation.parse(response(s), ctx({}));
    expect(parse('Simplified question: "Which airport is the highest?"\nI replaced the words.')).toEqual({ simplified: 'Which airport is the highest?' });
    expect(parse('1. What is the highest airport?')).toEqual({ simplified: 'What is the highest airport?' });
    expect(parse('  \n')).toEqual({ simplified: null, parseError: 'no simplified question in the answer' });
  });

  it('parses the revision, keeping the previous query when the answer holds none', () => {
    const parse = (s: string) => reviseStage(1).implementation.parse(response(s), ctx({ feedback: feedback({ revisions: 1 }) }));
    expect(parse('```sql\nSELECT 1;\n```')).toEqual({ sql: 'SELECT 1', revisions: 2 });
    expect(parse('I cannot fix it.')).toMatchObject({ sql: feedback().sql, revisions: 2, parseError: expect.stringContaining('kept the previous query') });
  });

  it('skips explanation and revision once the chain stopped, passing the query through', () => {
    const stopped = feedback({ stopped: true, revisions: 1 });
    expect(explainStage(2).implementation.skip!(ctx({ feedback: stopped }))?.output).toEqual({ explanation: null, skipped: true });
    expect(reviseStage(2).implementation.skip!(ctx({ feedback: stopped }))?.output).toEqual({ sql: stopped.sql, revisions: 1, stopped: true });
    expect(reviseStage(1).implementation.skip!(ctx({ feedback: feedback() }))).toBeUndefined();
  });

  it('feeds back the execution error and related contents, and stops on a repeated result', async () => {
    const run = async (i: number, inputs: Record<string, unknown>) => (await feedbackStage(i).implementation.run(ctx(inputs))).output as Feedback;
    const broken: RevisionState = { sql: 'SELECT nme FROM airports', revisions: 0 };
    const first = await run(1, { current: broken });
    expect(first).toMatchObject({ stopped: false, execution: expect.stringContaining('no such column: nme') });
    const fixed: RevisionState = { sql: item.goldSql, revisions: 1 };
    const second = await run(2, { current: fixed, earlier: first });
    expect(second.stopped).toBe(false);
    expect(second.execution).toMatch(/returned \d+ rows/);
    expect(second.contents).toMatch(/^\w+\.\w+: /m);
    const third = await run(3, { current: { ...fixed, revisions: 2 }, earlier: second });
    expect(third).toMatchObject({ stopped: true, stopReason: 'same execution result as the previous iteration', sql: item.goldSql, revisions: 2 });
    const fourth = await run(4, { current: { ...fixed, revisions: 2, stopped: true }, earlier: third });
    expect(fourth).toMatchObject({ stopped: true, stopReason: 'the chain stopped earlier' });
  });

  it('reports the revision counts as metrics of the final stage', async () => {
    const out = (await finalStage.implementation.run(ctx({ initial: { sql: 'SELECT 1', revisions: 0 }, last: { sql: 'SELECT 2', revisions: 2, stopped: true } }))).output;
    expect(out).toEqual({ sql: 'SELECT 2', metrics: { 'revision.count': 2, 'revision.changed': 1, 'revision.stoppedOnRepeat': 1 } });
  });

  it('retrieves k1 distinct training items by the original skeleton and k2 more by the simplified one', async () => {
    const train = dataset.items.filter((i) => i.split === 'train');
    const inputs: Record<string, unknown> = {};
    for (const t of train) {
      const tSchema = dataset.databases.find((d) => d.dbId === t.dbId)!;
      const tItem = { itemId: t.id, dbId: t.dbId, question: t.question, evidence: t.evidence ?? null, goldSql: t.goldSql };
      const out = (await trainSkeletonsStage.implementation.run(ctx({ simplified: { simplified: `${t.question} (simply)` } }, { item: tItem, schema: tSchema }))).output as TrainSkeletons;
      expect(out.entries.map((e) => e.variant)).toEqual(['original', 'simplified']);
      inputs[`repository/${t.id}`] = out;
    }
    const skeletons = (await skeletonsStage.implementation.run(ctx({ simplified: { simplified: 'Which airport is the highest?' } }))).output;
    expect(skeletons).toMatchObject({ original: expect.stringContaining('highest'), simplifiedQuestion: 'Which airport is the highest?' });
    const retrieved = (await retrieveStage.implementation.run(ctx({ ...inputs, skeletons }, { params: { ...params, k1: 3, k2: 2 } }))).output as Retrieved;
    expect(retrieved.demonstrations.map((d) => d.via)).toEqual(['original', 'original', 'original', 'simplified', 'simplified']);
    expect(new Set(retrieved.demonstrations.map((d) => d.itemId)).size).toBe(5);
    const scores = retrieved.demonstrations.slice(0, 3).map((d) => d.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(retrieved.metrics['retrieve.demonstrations']).toBe(5);
    expect(retrieved.metrics['retrieve.skeletonMatchShare']).toBeGreaterThanOrEqual(0);
    expect(retrieved.metrics['retrieve.skeletonMatchAny']).toBe(retrieved.metrics['retrieve.skeletonMatchShare']! > 0 ? 1 : 0);

    const plain = (await retrieveStage.implementation.run(ctx({ ...inputs, skeletons: { ...skeletons as object, simplified: null } }, { params: { ...params, k1: 3, k2: 2 } }))).output as Retrieved;
    expect(plain.demonstrations.map((d) => d.via)).toEqual(Array(5).fill('original'));
  });
});
