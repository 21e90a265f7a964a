import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expandVariants, parseSweepConfig, R3_DEFAULT_RAG_CORPUS, R3_SCHEMA_DESCRIPTION_RAG_CORPUS } from '@sqlsweep/contracts';
import { loadDataset, type DatabaseSchema } from '@sqlsweep/datasets';
import type { LlmResponse } from '@sqlsweep/llm';
import { buildIndex, cachedChunks, ensureBundledEncoderForTests, openEncoder, openIndex, type Encoder } from '@sqlsweep/retrieval';
import { fileKnobsRead } from '../../file-knobs';
import type { RetrievalServices, StageContext, StageItem } from '../../stage-context';
import { VariantKeyer } from '../../stage-keys';
import { r3Decompose, r3Generate, r3GenerateDirect, r3Link, r3Pipeline, type LinkedTables, type SubQuestions } from './r3';
import { r3RagStage, type RagContext } from './rag-context';
// nx-ignore-next-line
import { TempDirs } from '@sqlsweep/testing';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

const repoRoot = join(__dirname, '..', '..', '..', '..', '..');

function variants(grid: string) {
  const config = parseSweepConfig(`name: t\ndataset: minibench\nmodels: [sim-strong]\npipelines:\n  - pipeline: r3\n    grid: ${grid}\n`, 'test.yaml');
  return expandVariants(config);
}
const stagesOf = (grid: string) => r3Pipeline.graph(variants(grid)[0]).map((n) => `${n.stage}(${Object.values(n.inputs).join(',')})`);

describe('r3 graph', () => {
  it('is RAG -> linking -> decomposition -> generation -> evaluate by default, RAG feeding linking and decomposition', () => {
    expect(stagesOf('{}')).toEqual([
      'gold()', 'r3.rag()', 'r3.link(r3.rag)', 'r3.decompose(r3.link,r3.rag)', 'r3.generate(r3.link,r3.decompose)', 'evaluate(gold,r3.generate)',
    ]);
  });

  it('drops each component for its Table 3 ablation', () => {
    expect(stagesOf('{ schemaLinking: [false] }')).toEqual(['gold()', 'r3.rag()', 'r3.decompose(r3.rag)', 'r3.generate(r3.decompose)', 'evaluate(gold,r3.generate)']);
    expect(stagesOf('{ decomposition: [false] }')).toEqual(['gold()', 'r3.rag()', 'r3.link(r3.rag)', 'r3.generate-direct(r3.link)', 'evaluate(gold,r3.generate-direct)']);
    expect(stagesOf('{ rag: [false] }')).toEqual(['gold()', 'r3.link()', 'r3.decompose(r3.link)', 'r3.generate(r3.link,r3.decompose)', 'evaluate(gold,r3.generate)']);
  });

  it('adds RAG to generation only when asked', () => {
    expect(stagesOf('{ ragInGeneration: [true], ragInLinking: [false], ragInDecomposition: [false] }')).toEqual([
      'gold()', 'r3.rag()', 'r3.link()', 'r3.decompose(r3.link)', 'r3.generate(r3.link,r3.decompose,r3.rag)', 'evaluate(gold,r3.generate)',
    ]);
  });
});

describe('r3 keys and the RAG corpus', () => {
  const keysOf = (grid: string, ragCorpusSha256?: string) => {
    const keyer = new VariantKeyer(r3Pipeline, variants(grid)[0], { datasetVersion: 'v1', fileHashes: ragCorpusSha256 ? { ragCorpusSha256 } : {} });
    return new Map(keyer.itemStages('dev-1').map((s) => [s.stage, s.key]));
  };

  it('needs the corpus file only when a stage reads it', () => {
    expect(fileKnobsRead(r3Pipeline, variants('{}')[0])).toEqual([{ knob: 'ragCorpus', sha256Param: 'ragCorpusSha256', description: 'the RAG corpus', path: R3_DEFAULT_RAG_CORPUS }]);
    expect(fileKnobsRead(r3Pipeline, variants('{ rag: [false] }')[0])).toEqual([]);
    expect(fileKnobsRead(r3Pipeline, variants('{ ragInLinking: [false], ragInDecomposition: [false] }')[0])).toEqual([]);
  });

  it('keys r3.rag and what reads it on the corpus content; a variant without RAG needs no hash', () => {
    const [a, b] = [keysOf('{}', 'a'.repeat(64)), keysOf('{}', 'b'.repeat(64))];
    expect([...a.keys()].filter((stage) => a.get(stage) !== b.get(stage))).toEqual(['r3.rag', 'r3.link', 'r3.decompose', 'r3.generate', 'evaluate']);
    expect(a.get('gold')).toBe(b.get('gold'));
    expect(() => keysOf('{}')).toThrow('stage r3.rag reads unknown parameter "ragCorpusSha256" (the SHA-256 of the file knob ragCorpus: give it in fileHashes)');
    expect(keysOf('{ rag: [false] }').get('r3.link')).toBe(keysOf('{ rag: [false] }', 'a'.repeat(64)).get('r3.link'));
  });
});

describe('r3 prompts and parsing on minibench dev item 0', () => {
  let schema: DatabaseSchema;
  let item: StageItem;
  const params = { model: 'sim-strong', temperature: 0, maxTokens: 512, sampleIndex: 0, cacheNamespace: '', linkMatchThreshold: 0.5 };

  beforeAll(async () => {
    const dataset = await loadDataset({ format: 'minibench', path: join(repoRoot, 'data/minibench/dist') });
    const first = dataset.items.find((i) => i.split === 'dev')!;
    item = { itemId: first.id, dbId: first.dbId, question: first.question, evidence: first.evidence ?? null, goldSql: first.goldSql };
    schema = dataset.databases.find((d) => d.dbId === first.dbId)!;
  });

  const ctx = (inputs: Record<string, unknown>) => ({ item, schema, params, inputs }) as unknown as StageContext;
  const rag: RagContext = { chunks: [{ id: 'minibench.txt#3', text: 'In airports, the column elevation_ft is the elevation above sea level in feet.', score: 9 }], corpusSha256: 'x', metrics: {} };
  const link: LinkedTables = { tables: ['airports'], fallback: false, mapped: [], dropped: [], metrics: {} };
  const decomposition: SubQuestions = { subQuestions: ['Find the elevation of every airport.', 'Take the airport with the highest elevation.'], metrics: {} };
  const llmStages = { 'r3.link': r3Link, 'r3.decompose': r3Decompose, 'r3.generate': r3Generate, 'r3.generate-direct': r3GenerateDirect };
  const llm = (name: keyof typeof llmStages) => llmStages[name].implementation;

  it.each([
    ['r3.link', { rag }],
    ['r3.decompose', { rag, link }],
    ['r3.generate', { link, decomposition }],
    ['r3.generate-direct', { link, rag }],
  ] as const)('renders %s', (stage, inputs) => {
    const call = llm(stage).prompt(ctx(inputs));
    expect(call).toMatchObject({ model: 'sim-strong', temperature: 0, maxTokens: 512, sampleIndex: 0 });
    expect(call.messages).toMatchSnapshot();
  });

  it('shows generation the sub-questions only, never the original question (paper 3.1); No QD shows the question', () => {
    const prompt = (stage: 'r3.generate' | 'r3.generate-direct', inputs: Record<string, unknown>) =>
      llm(stage).prompt(ctx(inputs)).messages.map((m) => m.content).join('\n').toLowerCase();
    const generate = prompt('r3.generate', { link, decomposition, rag });
    expect(generate).not.toContain(item.question.toLowerCase());
    expect(generate).not.toMatch(/^question:/m);
    for (const step of decomposition.subQuestions) expect(generate).toContain(step.toLowerCase());
    expect(prompt('r3.generate-direct', { link })).toContain(item.question.toLowerCase());
  });

  it('shows only the linked tables to later stages, and every table without linking', () => {
    const withLink = llm('r3.decompose').prompt(ctx({ link })).messages[1].content;
    const withoutLink = llm('r3.decompose').prompt(ctx({})).messages[1].content;
    expect(withLink).toContain('CREATE TABLE airports');
    expect(withLink).not.toContain('CREATE TABLE flights');
    expect(withoutLink).toContain('CREATE TABLE flights');
  });

  const response = (output: string) => ({ output }) as LlmResponse;

  it('maps hallucinated table names and scores linking against the gold tables', () => {
    const out = llm('r3.link').parse(response('["airport", "runway_lengths"]'), ctx({})) as LinkedTables;
    expect(out).toMatchObject({ tables: ['airports'], fallback: false, dropped: ['runway_lengths'], mapped: [{ from: 'airport', to: 'airports' }] });
    expect(out.metrics).toMatchObject({
      'linking.table.precision': 1, 'linking.table.recall': 1, 'linking.table.f1': 1, 'linking.column.recall': 1, 'linking.tables': 1, 'linking.fallback': 0, 'linking.dropped': 1,
    });
    // airports has more columns than the gold query reads
    expect(out.metrics['linking.column.precision']).toBeGreaterThan(0);
    expect(out.metrics['linking.column.precision']).toBeLessThan(1);
  });

  it('falls back to the full schema when no name survives, recording why', () => {
    const out = llm('r3.link').parse(response('I am not sure.'), ctx({})) as LinkedTables;
    expect(out.fallback).toBe(true);
    expect(out.parseError).toBe('no table names found in the answer');
    expect(out.tables).toEqual(schema.tables.map((t) => t.name));
    expect(out.metrics['linking.table.recall']).toBe(1);
    expect(out.metrics['linking.table.precision']).toBeLessThan(1);
  });

  it('falls back to the original question when the decomposition is empty', () => {
    expect(llm('r3.decompose').parse(response(''), ctx({}))).toEqual({
      subQuestions: [item.question], parseError: 'no sub-questions found in the answer', metrics: { 'decomposition.subQuestions': 0 },
    });
  });

  it('estimates every LLM stage before its inputs exist', () => {
    for (const stage of ['r3.link', 'r3.decompose', 'r3.generate', 'r3.generate-direct'] as const) {
      const call = llm(stage).estimate!({ item, schema, params });
      expect(call.messages.at(-1)!.content).toContain(item.question);
    }
  });
});

describe('r3.rag on the schema-description corpus shipped with minibench, with the bundled encoder', () => {
  let encoder: Encoder;
  let retrieval: RetrievalServices;

  beforeAll(async () => {
    encoder = await openEncoder({ modelDir: ensureBundledEncoderForTests(), intraOpNumThreads: 1 });
    const indexRoot = temp.make('r3-rag-');
    const chunksDir = temp.make('r3-chunks-');
    retrieval = {
      encoder: async () => encoder,
      index: async (spec) => (await openIndex(indexRoot, (await buildIndex(spec, { encoder, indexRoot })).key)).index,
      chunks: (key, chunk) => cachedChunks(chunksDir, key, chunk),
    };
  }, 120_000);

  afterAll(async () => encoder?.close());

  async function run(params: Record<string, string | number>, question: string): Promise<RagContext> {
    const cwd = process.cwd();
    process.chdir(repoRoot);
    try {
      const ctx = { item: { itemId: 'dev-x', dbId: 'flights', question, evidence: null, goldSql: '' }, params, inputs: {}, services: { retrieval } } as unknown as StageContext;
      return (await r3RagStage.implementation.run(ctx)).output as RagContext;
    } finally {
      process.chdir(cwd);
    }
  }

  const sha256 = (path: string) => createHash('sha256').update(readFileSync(resolve(repoRoot, 'data', path))).digest('hex');
  const shipped = R3_SCHEMA_DESCRIPTION_RAG_CORPUS; // in the default corpus directory, data/

  it('returns budget / chunk-size chunks of at most chunk-size tokens, relevant to the question', async () => {
    const out = await run({ ragCorpus: shipped, ragCorpusSha256: sha256(shipped), ragChunkTokens: 50, ragBudgetTokens: 300 }, 'What is the elevation of the highest airport?');
    expect(out.corpusSha256).toBe(sha256(shipped));
    expect(out.chunks).toHaveLength(6);
    expect(out.metrics).toEqual({ 'rag.chunks': 6 });
    for (const c of out.chunks) expect(encoder.countTokens(c.text)).toBeLessThanOrEqual(50);
    expect(out.chunks[0].text).toMatch(/airport/i);
    expect(out.chunks.some((c) => /elevation/i.test(c.text))).toBe(true);
  }, 120_000);

  it('names the knob and the path when the corpus is missing', async () => {
    await expect(run({ ragCorpus: 'minibench/rag/nope.txt', ragCorpusSha256: 'a'.repeat(64), ragChunkTokens: 50, ragBudgetTokens: 300 }, 'x?'))
      .rejects.toThrow(/r3\.rag: cannot read the RAG corpus \(knob ragCorpus\) at .*nope\.txt/);
  });

  it('refuses a corpus whose content is not the one the stage was keyed on', async () => {
    const dir = temp.make('r3-corpus-');
    const corpus = join(dir, 'corpus.txt');
    writeFileSync(corpus, 'Airports have an elevation in feet.\n');
    const planned = createHash('sha256').update('Airports have an elevation in feet.\n').digest('hex');
    const params = { ragCorpus: 'corpus.txt', ragCorpusSha256: planned, ragChunkTokens: 50, ragBudgetTokens: 300 };
    process.env.SQLSWEEP_CORPUS_DIR = dir;
    try {
      expect((await run(params, 'elevation?')).corpusSha256).toBe(planned);
      writeFileSync(corpus, 'Airports have an elevation in metres.\n');
      await expect(run(params, 'elevation?')).rejects.toThrow(
        `r3.rag: the RAG corpus (knob ragCorpus) at ${corpus} has SHA-256 ${sha256(corpus).slice(0, 12)}, but the sweep was planned with ${planned.slice(0, 12)}`,
      );
      // The worker checks the path itself too: a job naming a file outside the corpus directory reads nothing.
      await expect(run({ ...params, ragCorpus: '/etc/passwd' }, 'x?')).rejects.toThrow(/r3\.rag: cannot read the RAG corpus \(knob ragCorpus\) at \/etc\/passwd: "\/etc\/passwd" is absolute/);
    } finally {
      delete process.env.SQLSWEEP_CORPUS_DIR;
    }
  });
});
