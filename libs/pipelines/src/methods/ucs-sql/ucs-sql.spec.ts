import { join } from 'node:path';
import { expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { loadDataset, type DatabaseSchema } from '@sqlsweep/datasets';
import type { LlmResponse } from '@sqlsweep/llm';
import { keyItemStages } from '../../stage-keys';
import type { LlmStage, StageContext, StageItem } from '../../stage-context';
import { ucsSqlMethod, ucsSqlPipeline } from './index';
import { biFilter, resolveIdentifier } from './linking';
import { normalizeFunction, parseChosenIds, parseFunctions, parseQuestionTerms, parseStringList } from './parse';
import { ssQeCandidates } from './ss-qe';
import type { CandidatesOutput, ContentOutput, Example, PreselectOutput, ShotsOutput, StructureOutput, TermsOutput } from './stages';

const repoRoot = join(__dirname, '..', '..', '..', '..', '..');

function variants(grid: string) {
  const config = parseSweepConfig(`name: t\ndataset: minibench\nmodels: [sim-strong]\npipelines:\n  - pipeline: ucs-sql\n    grid: ${grid}\n`, 'test.yaml');
  return expandVariants(config);
}
const stagesOf = (grid: string) => ucsSqlPipeline.graph(variants(grid)[0]).map((n) => `${n.stage}(${Object.keys(n.inputs).join(',')})`);

describe('ucs-sql graph', () => {
  it('runs every stage with SS-QE 5-shot by default, the two pipes both reading the question stage', () => {
    expect(stagesOf('{}')).toEqual([
      'gold()', 'ucs-sql.preselect()', 'ucs-sql.question()', 'ucs-sql.content(terms,preselect)', 'ucs-sql.structure(terms)',
      'ucs-sql.train-question()', 'ucs-sql.train-content(terms)', 'ucs-sql.train-structure(terms)',
      'ucs-sql.shot-candidates(content,structure,trainContent,trainStructure)', 'ucs-sql.select-shots(candidates)',
      'ucs-sql.skeleton(structure,shots)', 'ucs-sql.generate(preselect,content,structure,shots,skeleton)', 'evaluate(gold,prediction)',
    ]);
  });

  it('drops what each Table 3 ablation removes', () => {
    const zero = '{ shots: [0]';
    expect(stagesOf(`${zero}, contentPipe: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()', 'ucs-sql.question()', 'ucs-sql.structure(terms)',
      'ucs-sql.skeleton(structure)', 'ucs-sql.generate(preselect,structure,skeleton)', 'evaluate(gold,prediction)']);
    expect(stagesOf(`${zero}, structurePipe: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()', 'ucs-sql.question()', 'ucs-sql.content(terms,preselect)',
      'ucs-sql.skeleton()', 'ucs-sql.generate(preselect,content,skeleton)', 'evaluate(gold,prediction)']);
    expect(stagesOf(`${zero}, transitional: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()', 'ucs-sql.question()',
      'ucs-sql.skeleton(terms)', 'ucs-sql.generate(preselect,terms,skeleton)', 'evaluate(gold,prediction)']);
    expect(stagesOf(`${zero}, questionTransitional: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()',
      'ucs-sql.skeleton()', 'ucs-sql.generate(preselect,skeleton)', 'evaluate(gold,prediction)']);
    expect(stagesOf(`${zero}, sqlStage: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()', 'ucs-sql.question()', 'ucs-sql.content(terms,preselect)',
      'ucs-sql.structure(terms)', 'ucs-sql.generate(preselect,content,structure)', 'evaluate(gold,prediction)']);
    expect(stagesOf('{ shots: [2], shotSelection: [fixed], preselect: [false] }')).toEqual(['gold()', 'ucs-sql.question()', 'ucs-sql.content(terms)',
      'ucs-sql.structure(terms)', 'ucs-sql.shot-candidates()', 'ucs-sql.select-shots(candidates)', 'ucs-sql.skeleton(structure,shots)',
      'ucs-sql.generate(content,structure,shots,skeleton)', 'evaluate(gold,prediction)']);
  });

  it('keeps SS-QE information extraction of the target even when an ablation hides it from the SQL stage', () => {
    expect(stagesOf('{ questionTransitional: [false], preselect: [false], shots: [2] }')).toContain('ucs-sql.shot-candidates(content,structure,trainContent,trainStructure)');
    expect(stagesOf('{ questionTransitional: [false], preselect: [false], shots: [2] }')).toContain('ucs-sql.generate(shots,skeleton)');
  });

  it('shares the training-set precomputation between variants, and the target stages between k and θ settings', () => {
    const vs = variants('{ shots: [2, 5], theta1: [1, 2] }');
    expect(vs).toHaveLength(4);
    const keyed = vs.map((v) => keyItemStages(ucsSqlPipeline, v, { datasetVersion: 'd', itemId: 'dev-1', trainItemIds: ['train-1', 'train-2', 'train-3'] }));
    const keysOf = (stage: string) => new Set(keyed.flatMap((ks) => ks.filter((k) => k.stage === stage).map((k) => k.key)));
    expect(keysOf('ucs-sql.train-content').size).toBe(3);
    expect(keysOf('ucs-sql.train-question').size).toBe(3);
    expect(keysOf('ucs-sql.question').size).toBe(1);
    expect(keysOf('ucs-sql.content').size).toBe(1);
    expect(keysOf('ucs-sql.shot-candidates').size).toBe(4);
    expect(keysOf('ucs-sql.generate').size).toBe(4);
  });
});

describe('ucs-sql parsers', () => {
  it('reads question terms from JSON, wrapped or fenced, and rejects anything else', () => {
    expect(parseQuestionTerms('Here:\n```json\n{"content": ["Denver", "departure delay"], "structure": ["average"]}\n```')).toEqual({
      ok: true, value: { content: ['Denver', 'departure delay'], structure: ['average'] },
    });
    expect(parseQuestionTerms('{"content": ["x"]}')).toMatchObject({ ok: false, error: expect.stringContaining('"structure"') });
    expect(parseQuestionTerms('no idea')).toMatchObject({ ok: false });
  });

  it('reads lists as JSON or bullets', () => {
    expect(parseStringList('["a.b", "c"] because...', 'x')).toEqual({ ok: true, value: ['a.b', 'c'] });
    expect(parseStringList('- routes.origin\n- flights.route_id', 'x')).toEqual({ ok: true, value: ['routes.origin', 'flights.route_id'] });
    expect(parseStringList('nothing', 'schema identifiers')).toEqual({ ok: false, error: 'expected a JSON array of schema identifiers' });
  });

  it('normalises SQL functions to the vocabulary and keeps unknown names apart', () => {
    expect(normalizeFunction('order by')).toBe('ORDER BY');
    expect(normalizeFunction('AVG()')).toBe('AVG');
    expect(normalizeFunction('Inner Join')).toBe('JOIN');
    expect(parseFunctions('["AVG", "avg", "ORDER BY", "DESC", "PIVOT"]')).toEqual({ ok: true, value: { functions: ['AVG', 'ORDER BY', 'DESC'], unknown: ['PIVOT'] } });
  });

  it('keeps only offered ids', () => {
    expect(parseChosenIds('[3, "train-9", 7]', ['train-9', '3'])).toEqual({ ok: true, value: ['3', 'train-9'] });
    expect(parseChosenIds('[1]', ['train-9'])).toMatchObject({ ok: false });
  });
});

describe('ucs-sql SS-QE filter (Algorithm 1)', () => {
  const training = [
    { id: 't1', functions: ['AVG'], complexity: 4 },
    { id: 't2', functions: ['ORDER BY', 'DESC', 'LIMIT'], complexity: 9 },
    { id: 't3', functions: ['ORDER BY', 'DESC', 'LIMIT'], complexity: 6 },
    { id: 't4', functions: ['ORDER BY', 'DESC'], complexity: 7 },
    { id: 't5', functions: ['ORDER BY', 'DESC'], complexity: 5 },
  ];
  it('keeps questions sharing >= θ1 functions with |c - c_i| < θ2, in training order, up to 2k', () => {
    const target = { functions: ['ORDER BY', 'DESC', 'LIMIT', 'AVG'], complexity: 6 };
    expect(ssQeCandidates(target, training, { theta1: 2, theta2: 3, k: 5 })).toEqual({ ids: ['t3', 't4', 't5'], relaxed: false });
    expect(ssQeCandidates(target, training, { theta1: 2, theta2: 3, k: 1 })).toEqual({ ids: ['t3', 't4'], relaxed: false });
  });
  it('falls back to a ranking when nothing passes, flagged', () => {
    expect(ssQeCandidates({ functions: ['AVG', 'COUNT'], complexity: 20 }, training, { theta1: 2, theta2: 3, k: 1 })).toEqual({ ids: ['t1', 't2'], relaxed: true });
  });
});

describe('ucs-sql stages on minibench dev-15', () => {
  let schema: DatabaseSchema;
  let item: StageItem;
  const params = { model: 'sim-strong', temperature: 0.1, maxTokens: 512, sampleIndex: 0, cacheNamespace: '', preselectAboveColumns: 30 };

  beforeAll(async () => {
    const dataset = await loadDataset({ format: 'minibench', path: join(repoRoot, 'data/minibench/dist') });
    const found = dataset.items.find((i) => i.id === 'dev-15')!;
    item = { itemId: found.id, dbId: found.dbId, question: found.question, evidence: found.evidence ?? null, goldSql: found.goldSql };
    schema = dataset.databases.find((d) => d.dbId === found.dbId)!;
  });

  const ctx = (inputs: Record<string, unknown>) => ({ item, schema, params, inputs }) as unknown as StageContext;
  const llm = (name: string) => ucsSqlMethod.stages[name] as LlmStage;
  const response = (output: string) => ({ output }) as LlmResponse;

  const preselect: PreselectOutput = { tables: ['flights', 'routes'], pruned: true, metrics: {} };
  const terms: TermsOutput = { content: ['route', 'punctuality', 'January 2024', 'flight number'], structure: ['worst', 'which route'] };
  const structure: StructureOutput = { functions: ['WHERE', 'JOIN', 'GROUP BY', 'ORDER BY', 'DESC', 'LIMIT', 'AVG', 'LIKE'], unknown: [] };
  const shot: Example = { id: 'train-3', question: 'Which airline had the most flights?', evidence: null, sql: "SELECT airline_code FROM routes GROUP BY airline_code ORDER BY COUNT(*) DESC LIMIT 1" };
  const shots: ShotsOutput = { examples: [shot], chosenBy: 'llm' };
  const candidates: CandidatesOutput = { selection: 'ss-qe', k: 1, relaxed: false, metrics: {}, examples: [shot, { ...shot, id: 'train-8', question: 'How many routes leave Denver?' }] };
  let content: ContentOutput;

  it('links content: LLM identifiers + exact matches + foreign keys, scored against the gold columns', () => {
    content = llm('ucs-sql.content').parse(response('["flights.arrival_delay_min", "flights.flight_date", "routes.flight_number", "routes.punctuality"]'), ctx({ terms, preselect })) as ContentOutput;
    expect(content.unknown).toEqual(['routes.punctuality']);
    expect(content.biFiltered!.tables).toEqual(['routes', 'flights']);
    const cols = content.biFiltered!.columns.map((c) => `${c.table}.${c.column}`);
    expect(cols).toEqual(expect.arrayContaining(['flights.arrival_delay_min', 'flights.flight_date', 'routes.flight_number', 'flights.route_id', 'routes.route_id']));
    expect(content.metrics['linking.column.recall']).toBe(1);
    expect(content.metrics['linking.column.precision']).toBeGreaterThan(0.5);
    expect(content.metrics['linking.columns']).toBe(cols.length);
  });

  it('falls back to the pre-filtered schema on an unusable content answer, recording the error', () => {
    const out = llm('ucs-sql.content').parse(response('I cannot tell.'), ctx({ terms, preselect })) as ContentOutput;
    expect(out).toMatchObject({ biFiltered: null, parseError: 'expected a JSON array of schema identifiers' });
    expect(out.metrics['linking.table.precision']).toBe(1);
  });

  it.each([
    ['ucs-sql.preselect', () => ({})],
    ['ucs-sql.question', () => ({})],
    ['ucs-sql.content', () => ({ terms, preselect })],
    ['ucs-sql.structure', () => ({ terms })],
    ['ucs-sql.select-shots', () => ({ candidates })],
    ['ucs-sql.skeleton', () => ({ structure, shots })],
    ['ucs-sql.generate', () => ({ preselect, content, structure, shots, skeleton: { skeleton: 'SELECT _ FROM _ AS _ INNER JOIN _ AS _ ON _ = _ WHERE _ LIKE _ GROUP BY _ ORDER BY AVG(_) DESC LIMIT _' } })],
  ])('renders %s', (stage, inputs) => {
    const call = llm(stage).prompt(ctx(inputs()));
    expect(call).toMatchObject({ model: 'sim-strong', temperature: 0.1, maxTokens: 512, sampleIndex: 0 });
    expect(call.messages).toMatchSnapshot();
    const estimate = llm(stage).estimate!({ item, schema, params: { ...params, shots: 5 } });
    expect(estimate.messages.length).toBe(call.messages.length);
  });

  it('shows the bi-filtered schema and identifiers to generation, the pre-filtered schema without the content pipe', () => {
    const withContent = llm('ucs-sql.generate').prompt(ctx({ preselect, content })).messages[1].content;
    expect(withContent).toContain('Recommended identifiers: routes, flights, routes.route_id, routes.flight_number, flights.route_id');
    expect(withContent).not.toContain('`flights`.`seats_offered`');
    const withoutContent = llm('ucs-sql.generate').prompt(ctx({ preselect })).messages[1].content;
    expect(withoutContent).toContain('`flights`.`seats_offered`');
    expect(withoutContent).not.toContain('# Table airports');
  });

  it('skips the selector on a small schema and the shot choice when there is none to make', () => {
    const columns = schema.tables.reduce((n, t) => n + t.columns.length, 0);
    const withThreshold = (preselectAboveColumns: number) => ({ ...ctx({}), params: { ...params, preselectAboveColumns } }) as StageContext;
    expect(llm('ucs-sql.preselect').skip!(withThreshold(columns))?.output).toEqual({
      pruned: false, tables: schema.tables.map((t) => t.name), metrics: { 'prefilter.columns': columns },
    });
    expect(llm('ucs-sql.preselect').skip!(withThreshold(columns - 1))).toBeUndefined();
    expect(llm('ucs-sql.select-shots').skip!(ctx({ candidates }))).toBeUndefined();
    expect(llm('ucs-sql.select-shots').skip!(ctx({ candidates: { ...candidates, selection: 'fixed' } }))?.output).toEqual({ examples: [shot], chosenBy: 'all-candidates' });
  });

  it('parses the shot choice, falling back to the first k candidates', () => {
    expect(llm('ucs-sql.select-shots').parse(response('["train-8"]'), ctx({ candidates }))).toMatchObject({ chosenBy: 'llm', examples: [{ id: 'train-8' }] });
    expect(llm('ucs-sql.select-shots').parse(response('[99]'), ctx({ candidates }))).toMatchObject({ chosenBy: 'fallback', examples: [{ id: 'train-3' }] });
  });

  it('resolves identifiers forgivingly and keeps primary keys of tables named alone', () => {
    expect(resolveIdentifier('`Routes`.`Flight Number`', schema)).toEqual({ kind: 'column', column: { table: 'routes', column: 'flight_number' } });
    expect(resolveIdentifier('airports', schema)).toEqual({ kind: 'table', table: 'airports' });
    const linked = biFilter([{ kind: 'table', table: 'airports' }], schema);
    expect(linked.columns.map((c) => c.column)).toEqual(schema.tables.find((t) => t.name === 'airports')!.columns.filter((c) => c.primaryKey).map((c) => c.name));
  });
});

describe('ucs-sql sweep configs', () => {
  it('every configs/sweeps/ucs-sql-*.yaml validates and expands to distinct variants', () => {
    const { readdirSync, readFileSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
    const dir = join(repoRoot, 'configs', 'sweeps');
    const files = readdirSync(dir).filter((f) => f.startsWith('ucs-sql-') && f.endsWith('.yaml'));
    expect(files).toContain('ucs-sql-table3.yaml');
    for (const f of files) {
      const config = parseSweepConfig(readFileSync(join(dir, f), 'utf8'), f);
      const vs = expandVariants(config);
      expect(new Set(vs.map((v) => v.key)).size).toBe(vs.length);
      for (const v of vs) expect(() => ucsSqlPipeline.graph(v)).not.toThrow();
    }
  });
});
