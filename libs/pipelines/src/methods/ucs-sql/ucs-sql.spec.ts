import { join } from 'node:path';
import { expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { loadDataset, type Dataset, type DatabaseSchema } from '@sqlsweep/datasets';
import type { LlmResponse } from '@sqlsweep/llm';
import { ensureBundledEncoderForTests, openEncoder, type Encoder } from '@sqlsweep/retrieval';
import { pipelines, stageImplementations } from '../../registry';
import { questionSkeleton } from '../../similarity';
import { keyItemStages, VariantKeyer } from '../../stage-keys';
import type { ComputeStage, LlmStage, StageContext, StageItem } from '../../stage-context';
import { zeroShotPipeline } from '../zero-shot';
import { dailSelection, multisetJaccard } from './dail';
import { ucsSqlPipeline } from './index';
import { biFilter, resolveIdentifier } from './linking';
import { normalizeFunction, parseChosenIds, parseFunctions, parseQuestionTerms, parseStringList } from './parse';
import { dailSkeletonTokens } from './sql-skeleton';
import { ssQeCandidates } from './ss-qe';
import type { CandidatesOutput, ContentCandidatesOutput, ContentOutput, Example, PreselectOutput, ShotsOutput, StructureOutput, TermsOutput } from './stages';

const repoRoot = join(__dirname, '..', '..', '..', '..', '..');

function variants(grid: string, pipeline = 'ucs-sql') {
  const config = parseSweepConfig(`name: t\ndataset: minibench\nmodels: [sim-strong]\npipelines:\n  - pipeline: ${pipeline}\n    grid: ${grid}\n`, 'test.yaml');
  return expandVariants(config);
}
const stagesOf = (grid: string) => ucsSqlPipeline.graph(variants(grid)[0]).map((n) => `${n.stage}(${Object.keys(n.inputs).join(',')})`);
const nodeOf = (grid: string, stage: string) => ucsSqlPipeline.graph(variants(grid)[0]).find((n) => n.stage === stage);
const toStageItem = (i: Dataset['items'][number]): StageItem => ({ itemId: i.id, dbId: i.dbId, question: i.question, evidence: i.evidence ?? null, goldSql: i.goldSql });

describe('ucs-sql graph', () => {
  it('runs every stage with SS-QE 5-shot by default, the two pipes both reading the question stage', () => {
    expect(stagesOf('{}')).toEqual([
      'gold()', 'ucs-sql.preselect()', 'ucs-sql.question()', 'ucs-sql.content(terms,preselect)',
      'ucs-sql.foreign-keys(content,terms,preselect)', 'ucs-sql.structure(terms)',
      'ucs-sql.train-preselect()', 'ucs-sql.train-question()', 'ucs-sql.train-content(terms,preselect)',
      'ucs-sql.train-foreign-keys(content,terms,preselect)', 'ucs-sql.train-structure(terms)',
      'ucs-sql.shot-candidates(content,structure,trainContent,trainStructure)', 'ucs-sql.select-shots(candidates)',
      'ucs-sql.skeleton(structure,shots)', 'ucs-sql.generate(preselect,content,structure,shots,skeleton)', 'evaluate(gold,prediction)',
    ]);
  });

  it('drops what each Table 3 ablation removes', () => {
    const zero = '{ shots: [0]';
    expect(stagesOf(`${zero}, contentPipe: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()', 'ucs-sql.question()', 'ucs-sql.structure(terms)',
      'ucs-sql.skeleton(structure)', 'ucs-sql.generate(preselect,structure,skeleton)', 'evaluate(gold,prediction)']);
    expect(stagesOf(`${zero}, structurePipe: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()', 'ucs-sql.question()', 'ucs-sql.content(terms,preselect)',
      'ucs-sql.foreign-keys(content,terms,preselect)', 'ucs-sql.skeleton()', 'ucs-sql.generate(preselect,content,skeleton)', 'evaluate(gold,prediction)']);
    expect(stagesOf(`${zero}, transitional: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()', 'ucs-sql.question()',
      'ucs-sql.skeleton(terms)', 'ucs-sql.generate(preselect,terms,skeleton)', 'evaluate(gold,prediction)']);
    expect(stagesOf(`${zero}, questionTransitional: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()',
      'ucs-sql.skeleton()', 'ucs-sql.generate(preselect,skeleton)', 'evaluate(gold,prediction)']);
    expect(stagesOf(`${zero}, sqlStage: [false] }`)).toEqual(['gold()', 'ucs-sql.preselect()', 'ucs-sql.question()', 'ucs-sql.content(terms,preselect)',
      'ucs-sql.foreign-keys(content,terms,preselect)', 'ucs-sql.structure(terms)', 'ucs-sql.generate(preselect,content,structure)', 'evaluate(gold,prediction)']);
    expect(stagesOf('{ shots: [2], shotSelection: [fixed], preselect: [false] }')).toEqual(['gold()', 'ucs-sql.question()', 'ucs-sql.content(terms)',
      'ucs-sql.foreign-keys(content,terms)', 'ucs-sql.structure(terms)', 'ucs-sql.shot-candidates()', 'ucs-sql.select-shots(candidates)', 'ucs-sql.skeleton(structure,shots)',
      'ucs-sql.generate(content,structure,shots,skeleton)', 'evaluate(gold,prediction)']);
  });

  it('keeps SS-QE information extraction of the target even when an ablation hides it from the SQL stage', () => {
    expect(stagesOf('{ questionTransitional: [false], preselect: [false], shots: [2] }')).toContain('ucs-sql.shot-candidates(content,structure,trainContent,trainStructure)');
    expect(stagesOf('{ questionTransitional: [false], preselect: [false], shots: [2] }')).toContain('ucs-sql.generate(shots,skeleton)');
  });

  it('drafts with the zero-shot baseline\'s own node for DAIL selection, with no training-set precomputation', () => {
    expect(stagesOf('{ shotSelection: [dail] }')).toEqual([
      'gold()', 'ucs-sql.preselect()', 'ucs-sql.question()', 'ucs-sql.content(terms,preselect)',
      'ucs-sql.foreign-keys(content,terms,preselect)', 'ucs-sql.structure(terms)', 'zero-shot.generate()', 'ucs-sql.shot-candidates(draft)', 'ucs-sql.select-shots(candidates)',
      'ucs-sql.skeleton(structure,shots)', 'ucs-sql.generate(preselect,content,structure,shots,skeleton)', 'evaluate(gold,prediction)',
    ]);
    expect(nodeOf('{ shotSelection: [dail] }', 'ucs-sql.shot-candidates')).toMatchObject({ reads: ['shots', 'shotSelection', 'dailThreshold'], inputs: { draft: 'zero-shot.generate' } });
    expect(nodeOf('{ shotSelection: [dail] }', 'zero-shot.generate')).toEqual(zeroShotPipeline.graph(variants('{}', 'zero-shot')[0])[1]);
    expect(stagesOf('{ shots: [0], shotSelection: [dail] }')).not.toContain('zero-shot.generate()');
  });

  it('keeps what the SS-QE and fixed candidates read, and nothing else reads τ', () => {
    expect(nodeOf('{}', 'ucs-sql.shot-candidates')!.reads).toEqual(['shots', 'shotSelection', 'theta1', 'theta2']);
    expect(nodeOf('{ shots: [2], shotSelection: [fixed] }', 'ucs-sql.shot-candidates')!.reads).toEqual(['shots', 'shotSelection']);
    for (const grid of ['{}', '{ shots: [2], shotSelection: [fixed] }', '{ shots: [0], shotSelection: [dail] }', '{ sqlStage: [false], shotSelection: [dail] }']) {
      const readers = ucsSqlPipeline.graph(variants(grid)[0]).filter((n) => n.reads.includes('dailThreshold')).map((n) => n.stage);
      expect({ grid, readers }).toEqual({ grid, readers: grid.includes('dail') && !grid.includes('shots: [0]') ? ['ucs-sql.shot-candidates'] : [] });
    }
  });

  it('shares the DAIL draft with a zero-shot variant at the same settings, and τ changes only DAIL\'s candidates and what follows', () => {
    const ctx = { datasetVersion: 'd', itemId: 'dev-1', trainItemIds: ['train-1', 'train-2'] };
    const keys = (v: ReturnType<typeof variants>[number]) => new Map(keyItemStages(pipelines[v.pipeline], v, ctx).map((k) => [`${k.stage}@${k.itemId}`, k.key]));
    const zeroShot = keys(variants('{ temperature: [0.1] }', 'zero-shot')[0]);
    const [tau8, tau9] = variants('{ shotSelection: [dail], dailThreshold: [0.8, 0.9] }').map(keys);
    const ssQe = keys(variants('{}')[0]);
    expect(tau9.get('zero-shot.generate@dev-1')).toBe(zeroShot.get('zero-shot.generate@dev-1'));
    expect(tau8.get('zero-shot.generate@dev-1')).toBe(zeroShot.get('zero-shot.generate@dev-1'));
    expect(keys(variants('{ shotSelection: [dail], temperature: [0.5] }')[0]).get('zero-shot.generate@dev-1')).not.toBe(zeroShot.get('zero-shot.generate@dev-1'));
    for (const stage of ['ucs-sql.shot-candidates', 'ucs-sql.select-shots', 'ucs-sql.generate']) expect(tau8.get(`${stage}@dev-1`)).not.toBe(tau9.get(`${stage}@dev-1`));
    for (const stage of ['ucs-sql.preselect', 'ucs-sql.question', 'ucs-sql.content', 'ucs-sql.structure']) expect(tau9.get(`${stage}@dev-1`)).toBe(ssQe.get(`${stage}@dev-1`));
    // τ is not read outside DAIL: SS-QE and fixed variants that differ only in it share every stage.
    for (const grid of ['{ dailThreshold: [0.5, 0.9] }', '{ shots: [2], shotSelection: [fixed], dailThreshold: [0.5, 0.9] }']) {
      const [a, b] = variants(grid).map(keys);
      expect([...a]).toEqual([...b]);
    }
  });

  it('can estimate every LLM call of a DAIL variant before the run', () => {
    for (const node of ucsSqlPipeline.graph(variants('{ shotSelection: [dail] }')[0]).filter((n) => n.role === 'llm')) {
      const impl = stageImplementations[node.stage]!;
      expect({ stage: node.stage, estimable: impl.kind === 'llm' && impl.estimate !== undefined }).toEqual({ stage: node.stage, estimable: true });
    }
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

describe('ucs-sql DAIL selection (ranking)', () => {
  const c = (id: string, questionSimilarity: number, querySimilarity: number) => ({ id, questionSimilarity, querySimilarity });
  const pool = [c('train-1', 0.9, 0.2), c('train-2', 0.8, 0.95), c('train-3', 0.7, 0.5), c('train-4', 0.6, 1), c('train-5', 0.5, 0.1)];
  const ids = (xs: ReadonlyArray<{ id: string }>) => xs.map((x) => x.id);

  it('puts the question-ranked candidates whose query similarity meets τ first, then fills up in question order', () => {
    const chosen = dailSelection(pool, { k: 3, threshold: 0.9 });
    expect(ids(chosen)).toEqual(['train-2', 'train-4', 'train-1']);
    expect(chosen.map((x) => x.queryMatched)).toEqual([true, true, false]);
    expect(ids(dailSelection(pool, { k: 1, threshold: 0.9 }))).toEqual(['train-2']);
    expect(ids(dailSelection(pool, { k: 3, threshold: 0.96 }))).toEqual(['train-4', 'train-1', 'train-2']);
    expect(ids(dailSelection(pool, { k: 3, threshold: 0.5 }))).toEqual(['train-2', 'train-3', 'train-4']);
  });

  it('ranks whatever the input order, equal question similarities in dataset order', () => {
    const tied = [c('train-10', 0.5, 0), c('train-9', 0.5, 0), c('train-2', 0.7, 0), c('train-11', 0.5, 0.95)];
    expect(ids(dailSelection(tied, { k: 3, threshold: 0.9 }))).toEqual(['train-11', 'train-2', 'train-9']);
    expect(ids(dailSelection([...tied].reverse(), { k: 4, threshold: 1 }))).toEqual(['train-2', 'train-9', 'train-10', 'train-11']);
  });

  it('gives the whole pool, matched first, when k exceeds it, and nothing for k = 0', () => {
    expect(ids(dailSelection(pool, { k: 10, threshold: 0.9 }))).toEqual(['train-2', 'train-4', 'train-1', 'train-3', 'train-5']);
    expect(dailSelection(pool, { k: 0, threshold: 0.9 })).toEqual([]);
    expect(dailSelection([], { k: 5, threshold: 0.9 })).toEqual([]);
  });

  it('without a draft (query similarity 0) ranks by question similarity alone', () => {
    const noDraft = pool.map((x) => ({ ...x, querySimilarity: 0 }));
    const chosen = dailSelection(noDraft, { k: 3, threshold: 0.9 });
    expect(ids(chosen)).toEqual(['train-1', 'train-2', 'train-3']);
    expect(chosen.every((x) => !x.queryMatched)).toBe(true);
  });

  it('measures query similarity as a Jaccard of token bags, not sets', () => {
    const count = dailSkeletonTokens('SELECT COUNT(*) FROM t WHERE a = 1');
    const overSubquery = dailSkeletonTokens('SELECT COUNT(*) FROM (SELECT a FROM t WHERE b = 2)');
    expect(new Set(count)).toEqual(new Set(overSubquery));
    expect(multisetJaccard(count, overSubquery)).toBeCloseTo(9 / 14, 10);
    expect(multisetJaccard(count, count)).toBe(1);
    expect(multisetJaccard(['SELECT', '_'], ['FROM'])).toBe(0);
    expect(multisetJaccard([], [])).toBe(0);
  });

  it('compares DAIL\'s coarse query skeleton: joins, aliases, lists and simple conditions collapse', () => {
    const skeleton = (sql: string) => dailSkeletonTokens(sql).join(' ');
    expect(skeleton("SELECT T2.flight_number FROM flights AS T1 INNER JOIN routes AS T2 ON T1.route_id = T2.route_id WHERE T1.flight_date LIKE '2024-01%' GROUP BY T2.route_id ORDER BY AVG(T1.arrival_delay_min) DESC LIMIT 1"))
      .toBe('SELECT _ FROM _ WHERE _ LIKE _ GROUP BY _ ORDER BY _ ( _ ) DESC LIMIT _');
    expect(skeleton("SELECT name, age FROM singer WHERE country = 'France' AND age > 20")).toBe('SELECT _ FROM _ WHERE _');
    expect(skeleton('SELECT a FROM t JOIN u ON t.id = u.id AND t.k = u.k JOIN v ON u.x = v.x')).toBe('SELECT _ FROM _');
    expect(skeleton('SELECT a FROM t WHERE b IN (SELECT c FROM u WHERE d >= 3) ORDER BY a')).toBe('SELECT _ FROM _ WHERE _ IN ( SELECT _ FROM _ WHERE _ ) ORDER BY _');
  });
});

describe('ucs-sql stages on minibench dev-15', () => {
  let schema: DatabaseSchema;
  let item: StageItem;
  const params = {
    model: 'sim-strong', temperature: 0.1, maxTokens: 512, sampleIndex: 0, cacheNamespace: '', preselectAboveColumns: 30, preselectAboveAverageColumns: 6,
    linkingCodeAdditions: false,
  };

  beforeAll(async () => {
    const dataset = await loadDataset({ format: 'minibench', path: join(repoRoot, 'data/minibench/dist') });
    const found = dataset.items.find((i) => i.id === 'dev-15')!;
    item = { itemId: found.id, dbId: found.dbId, question: found.question, evidence: found.evidence ?? null, goldSql: found.goldSql };
    schema = dataset.databases.find((d) => d.dbId === found.dbId)!;
  });

  const ctx = (inputs: Record<string, unknown>) => ({ item, schema, params, inputs }) as unknown as StageContext;
  const llm = (name: string) => stageImplementations[name] as LlmStage;
  const response = (output: string) => ({ output }) as LlmResponse;

  const columnsOf = (...tables: string[]) => schema.tables.filter((t) => tables.includes(t.name)).flatMap((t) => t.columns.map((c) => ({ table: t.name, column: c.name })));
  let preselect: PreselectOutput;
  beforeAll(() => { preselect = { tables: ['flights', 'routes'], columns: columnsOf('flights', 'routes'), pruned: true, metrics: {} }; });
  const terms: TermsOutput = { content: ['route', 'punctuality', 'January 2024', 'flight number'], structure: ['worst', 'which route'] };
  const structure: StructureOutput = { functions: ['WHERE', 'JOIN', 'GROUP BY', 'ORDER BY', 'DESC', 'LIMIT', 'AVG', 'LIKE'], unknown: [] };
  const shot: Example = { id: 'train-3', question: 'Which airline had the most flights?', evidence: null, sql: "SELECT airline_code FROM routes GROUP BY airline_code ORDER BY COUNT(*) DESC LIMIT 1" };
  const shots: ShotsOutput = { examples: [shot], chosenBy: 'llm' };
  const candidates: CandidatesOutput = { selection: 'ss-qe', k: 1, relaxed: false, metrics: {}, examples: [shot, { ...shot, id: 'train-8', question: 'How many routes leave Denver?' }] };
  let content: ContentOutput;

  const withParams = (inputs: Record<string, unknown>, extra: Record<string, unknown>) => ({ ...ctx(inputs), params: { ...params, ...extra } }) as unknown as StageContext;
  const candidatesFrom = (answer: string) => llm('ucs-sql.content').parse(response(answer), ctx({ terms, preselect })) as ContentCandidatesOutput;

  it('links content: the LLM candidates plus the foreign keys the LLM names, scored against the gold columns', () => {
    const candidates = candidatesFrom('["flights.arrival_delay_min", "flights.flight_date", "routes.flight_number", "routes.punctuality"]');
    expect(candidates.unknown).toEqual(['routes.punctuality']);
    content = llm('ucs-sql.foreign-keys').parse(response('["flights.route_id", "routes.route_id"]'), ctx({ content: candidates, terms, preselect })) as ContentOutput;
    expect(content.biFiltered!.tables).toEqual(['routes', 'flights']);
    const cols = content.biFiltered!.columns.map((c) => `${c.table}.${c.column}`);
    expect(cols.sort()).toEqual(['flights.arrival_delay_min', 'flights.flight_date', 'flights.route_id', 'routes.flight_number', 'routes.route_id']);
    expect(content.metrics['linking.column.recall']).toBe(1);
    expect(content.metrics['linking.column.precision']).toBe(1);
    expect(content.metrics['linking.columns']).toBe(cols.length);
  });

  it('counts as |I| only what the LLM answered, unless the code additions are switched on', () => {
    // "routes" is named alone; the question says "flight number" and "route" verbatim.
    const candidates = candidatesFrom('["routes", "flights.arrival_delay_min"]');
    const fk = (codeAdditions: boolean) => llm('ucs-sql.foreign-keys').parse(response('[]'), withParams({ content: candidates, terms, preselect }, { linkingCodeAdditions: codeAdditions })) as ContentOutput;
    expect(fk(false).identifiers).toEqual(['routes', 'flights', 'flights.arrival_delay_min']);
    const added = fk(true).identifiers;
    expect(added).toEqual(expect.arrayContaining(['routes.route_id', 'flights.route_id', 'routes.flight_number']));
    expect(added.length).toBeGreaterThan(3);
    expect(nodeOf('{}', 'ucs-sql.foreign-keys')!.reads).toContain('linkingCodeAdditions');
    expect(nodeOf('{}', 'ucs-sql.train-foreign-keys')!.reads).toContain('linkingCodeAdditions');
  });

  it('extracts training and target identifiers on the same (pre-filtered) schema view', () => {
    const graph = ucsSqlPipeline.graph(variants('{}')[0]);
    const node = (stage: string) => graph.find((n) => n.stage === stage)!;
    expect(node('ucs-sql.content').inputs).toMatchObject({ preselect: 'ucs-sql.preselect' });
    expect(node('ucs-sql.train-content').inputs).toMatchObject({ preselect: 'ucs-sql.train-preselect' });
    expect(node('ucs-sql.train-foreign-keys').inputs).toMatchObject({ preselect: 'ucs-sql.train-preselect' });
    expect(node('ucs-sql.train-preselect').reads).toEqual(expect.arrayContaining(['preselectAboveColumns', 'preselectAboveAverageColumns']));
    const target = llm('ucs-sql.content').prompt(ctx({ terms, preselect })).messages[1]!.content;
    const training = llm('ucs-sql.train-content').prompt(ctx({ terms, preselect })).messages[1]!.content;
    expect(training).toBe(target);
    expect(training).not.toContain('# Table airports');
    expect(ucsSqlPipeline.graph(variants('{ preselect: [false] }')[0]).map((n) => n.stage)).not.toContain('ucs-sql.train-preselect');
  });

  it('falls back to the pre-filtered schema on an unusable content answer, recording the error, without a foreign-key call', () => {
    const candidates = candidatesFrom('I cannot tell.');
    expect(candidates).toMatchObject({ identified: [], parseError: 'expected a JSON array of schema identifiers' });
    const out = llm('ucs-sql.foreign-keys').skip!(ctx({ content: candidates, terms, preselect }))!.output as ContentOutput;
    expect(out).toMatchObject({ biFiltered: null, parseError: 'expected a JSON array of schema identifiers' });
    expect(out.metrics['linking.table.precision']).toBe(1);
    expect(llm('ucs-sql.foreign-keys').skip!(ctx({ content: candidatesFrom('["routes"]'), terms, preselect }))).toBeUndefined();
  });

  it('scores the pre-filtered schema with precision, recall and F1, and prunes columns MAC-SQL-style', () => {
    const decisions = Object.fromEntries(schema.tables.map((t) => [t.name, t.name === 'routes' ? 'keep_all' : t.name === 'flights' ? ['arrival_delay_min', 'flight_date'] : 'drop_all']));
    const answer = `{"routes": "keep_all", ${JSON.stringify(decisions).slice(1)}`;
    const out = llm('ucs-sql.preselect').parse(response(answer), ctx({})) as PreselectOutput;
    expect(out.tables).toEqual(schema.tables.filter((t) => t.name === 'flights' || t.name === 'routes').map((t) => t.name));
    const flights = schema.tables.find((t) => t.name === 'flights')!;
    const keptFlights = out.columns.filter((c) => c.table === 'flights').map((c) => c.column);
    expect(keptFlights).toEqual(expect.arrayContaining(['arrival_delay_min', 'flight_date', ...flights.columns.filter((c) => c.primaryKey || c.references).map((c) => c.name)]));
    expect(keptFlights.length).toBe(Math.min(flights.columns.length, Math.max(6, keptFlights.length)));
    expect(keptFlights.length).toBeLessThan(flights.columns.length);
    expect(out.pruned).toBe(true);
    for (const level of ['table', 'column']) for (const m of ['precision', 'recall', 'f1']) expect(out.metrics[`prefilter.${level}.${m}`]).toBeGreaterThan(0);
    expect(out.metrics['prefilter.table.recall']).toBe(1);
    expect(out.metrics['prefilter.columns']).toBe(out.columns.length);
    const whole = llm('ucs-sql.preselect').parse(response('no idea'), ctx({})) as PreselectOutput;
    expect(whole).toMatchObject({ pruned: false, parseError: expect.stringContaining('JSON object') });
    expect(whole.metrics['prefilter.column.recall']).toBe(1);
    expect(whole.metrics['prefilter.column.precision']).toBeLessThan(out.metrics['prefilter.column.precision']!);
  });

  it.each([
    ['ucs-sql.preselect', () => ({})],
    ['ucs-sql.question', () => ({})],
    ['ucs-sql.content', () => ({ terms, preselect })],
    ['ucs-sql.foreign-keys', () => ({ terms, preselect, content: { identified: [{ kind: 'column', column: { table: 'flights', column: 'flight_date' } }, { kind: 'table', table: 'routes' }], unknown: [] } })],
    ['ucs-sql.structure', () => ({ terms })],
    ['ucs-sql.select-shots', () => ({ candidates })],
    ['zero-shot.generate', () => ({})],
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

  it('skips the selector (still scoring the whole schema) unless the schema exceeds either threshold, and the shot choice when there is none to make', () => {
    const columns = schema.tables.reduce((n, t) => n + t.columns.length, 0);
    const average = Math.floor(columns / schema.tables.length);
    const withThreshold = (preselectAboveColumns: number, preselectAboveAverageColumns = average) => withParams({}, { preselectAboveColumns, preselectAboveAverageColumns });
    const skipped = llm('ucs-sql.preselect').skip!(withThreshold(columns))?.output as PreselectOutput;
    expect(skipped).toMatchObject({ pruned: false, tables: schema.tables.map((t) => t.name), columns: columnsOf(...schema.tables.map((t) => t.name)) });
    expect(skipped.metrics).toMatchObject({ 'prefilter.columns': columns, 'prefilter.column.recall': 1, 'prefilter.table.recall': 1 });
    expect(skipped.metrics['prefilter.column.precision']).toBeGreaterThan(0);
    expect(skipped.metrics['prefilter.column.f1']).toBeGreaterThan(0);
    expect(llm('ucs-sql.preselect').skip!(withThreshold(columns - 1))).toBeUndefined();
    expect(llm('ucs-sql.preselect').skip!(withThreshold(columns, average - 1))).toBeUndefined();
    expect(llm('ucs-sql.preselect').skip!(withThreshold(0, 1000))).toBeUndefined();
    expect(llm('ucs-sql.select-shots').skip!(ctx({ candidates }))).toBeUndefined();
    expect(llm('ucs-sql.select-shots').skip!(ctx({ candidates: { ...candidates, selection: 'fixed' } }))?.output).toEqual({ examples: [shot], chosenBy: 'all-candidates' });
    expect(llm('ucs-sql.select-shots').skip!(ctx({ candidates: { ...candidates, selection: 'dail' } }))?.output).toEqual({ examples: [shot], chosenBy: 'all-candidates' });
  });

  it('knows before the run that fixed and DAIL shots, and a small schema, leave nothing to ask; SS-QE shots may', () => {
    const planTime = (grid: string, stage: string) => ({
      item, schema, params: { ...new VariantKeyer(ucsSqlPipeline, variants(grid)[0], { datasetVersion: 'd' }).planTimeParams(stage) },
    });
    expect(llm('ucs-sql.select-shots').skipsFor!(planTime('{ shots: [2], shotSelection: [fixed] }', 'ucs-sql.select-shots'))).toBe(true);
    expect(llm('ucs-sql.select-shots').skipsFor!(planTime('{ shots: [2], shotSelection: [dail] }', 'ucs-sql.select-shots'))).toBe(true);
    expect(llm('ucs-sql.select-shots').skipsFor!(planTime('{ shots: [2], shotSelection: [ss-qe] }', 'ucs-sql.select-shots'))).toBe(false);
    const columns = schema.tables.reduce((n, t) => n + t.columns.length, 0);
    const average = Math.floor(columns / schema.tables.length);
    expect(llm('ucs-sql.preselect').skipsFor!(planTime(`{ preselectAboveColumns: [${columns}], preselectAboveAverageColumns: [${average}] }`, 'ucs-sql.preselect'))).toBe(true);
    expect(llm('ucs-sql.preselect').skipsFor!(planTime(`{ preselectAboveColumns: [${columns - 1}], preselectAboveAverageColumns: [${average}] }`, 'ucs-sql.preselect'))).toBe(false);
    expect(llm('ucs-sql.preselect').skipsFor!(planTime(`{ preselectAboveColumns: [${columns}], preselectAboveAverageColumns: [${average - 1}] }`, 'ucs-sql.preselect'))).toBe(false);
  });

  it('estimates the SS-QE shot choice among 2k candidates from the parameters the planner gives it', () => {
    const keyer = new VariantKeyer(ucsSqlPipeline, variants('{ shots: [3] }')[0], { datasetVersion: 'd' });
    const estimate = llm('ucs-sql.select-shots').estimate!({ item, schema, params: { ...keyer.planTimeParams('ucs-sql.select-shots') } });
    const prompt = estimate.messages.map((m) => m.content).join('\n');
    expect(prompt.match(/^train-\d+: /gm)).toHaveLength(6);
    expect(prompt).not.toContain('NaN');
  });

  it('parses the shot choice, falling back to the first k candidates', () => {
    expect(llm('ucs-sql.select-shots').parse(response('["train-8"]'), ctx({ candidates }))).toMatchObject({ chosenBy: 'llm', examples: [{ id: 'train-8' }] });
    expect(llm('ucs-sql.select-shots').parse(response('[99]'), ctx({ candidates }))).toMatchObject({ chosenBy: 'fallback', examples: [{ id: 'train-3' }] });
  });

  it('resolves identifiers forgivingly; only the code additions give a table named alone its primary key', () => {
    expect(resolveIdentifier('`Routes`.`Flight Number`', schema)).toEqual({ kind: 'column', column: { table: 'routes', column: 'flight_number' } });
    expect(resolveIdentifier('airports', schema)).toEqual({ kind: 'table', table: 'airports' });
    expect(biFilter([{ kind: 'table', table: 'airports' }], schema, { codeAdditions: false })).toEqual({ tables: ['airports'], columns: [] });
    const linked = biFilter([{ kind: 'table', table: 'airports' }], schema, { codeAdditions: true });
    expect(linked.columns.map((c) => c.column)).toEqual(schema.tables.find((t) => t.name === 'airports')!.columns.filter((c) => c.primaryKey).map((c) => c.name));
  });
});

describe('ucs-sql DAIL candidates on minibench (masked questions, pooled embeddings, draft skeleton)', () => {
  let dataset: Dataset;
  let encoder: Encoder;
  let item: StageItem;
  let schema: DatabaseSchema;
  let schemaCalls: string[];
  const candidatesStage = stageImplementations['ucs-sql.shot-candidates'] as ComputeStage;

  beforeAll(async () => {
    dataset = await loadDataset({ format: 'minibench', path: join(repoRoot, 'data/minibench/dist') });
    item = toStageItem(dataset.items.find((i) => i.id === 'dev-15')!);
    schema = dataset.databases.find((d) => d.dbId === item.dbId)!;
    encoder = await openEncoder({ modelDir: ensureBundledEncoderForTests(), intraOpNumThreads: 1 });
  });
  afterAll(async () => {
    await encoder?.close();
  });

  const train = () => dataset.items.filter((i) => i.split === 'train').map(toStageItem);
  async function candidates(inputs: Record<string, unknown>, params: Record<string, number> = {}, target = { item, schema }, datasetVersion = 'minibench-spec'): Promise<CandidatesOutput> {
    schemaCalls = [];
    const services = {
      retrieval: { encoder: async () => encoder, index: async () => { throw new Error('DAIL uses the pooled index'); } },
      dataset: {
        trainItems: async () => train(),
        schema: async (dbId: string) => {
          schemaCalls.push(dbId);
          return dataset.databases.find((d) => d.dbId === dbId)!;
        },
      },
    };
    const ctx = { ...target, inputs, datasetVersion, params: { shots: 5, shotSelection: 'dail', dailThreshold: 0.9, ...params }, services } as unknown as StageContext;
    return (await candidatesStage.run(ctx)).output as CandidatesOutput;
  }

  it('puts training SQL as close to the draft as τ first, then the nearest masked questions, and says so in metrics', async () => {
    const out = await candidates({ draft: { sql: item.goldSql } });
    const unguided = await candidates({ draft: { sql: null, parseError: 'no SQL' } });
    expect(out).toMatchObject({ selection: 'dail', k: 5, relaxed: false });
    const byId = new Map(train().map((t) => [t.itemId, t]));
    expect(out.examples).toHaveLength(5);
    for (const e of out.examples) expect(e).toEqual({ id: e.id, question: byId.get(e.id)!.question, evidence: byId.get(e.id)!.evidence, sql: byId.get(e.id)!.goldSql });
    const choices = out.dail!.choices;
    expect(choices.map((x) => x.id)).toEqual(out.examples.map((e) => e.id));
    const matched = choices.filter((x) => x.queryMatched);
    expect(matched.length).toBeGreaterThan(0);
    expect(choices.slice(0, matched.length)).toEqual(matched);
    for (const x of choices) expect(x.querySimilarity >= 0.9).toBe(x.queryMatched);
    for (const group of [matched, choices.filter((x) => !x.queryMatched)]) {
      const sims = group.map((x) => x.questionSimilarity);
      expect(sims).toEqual([...sims].sort((a, b) => b - a));
    }
    // The fill-ups are the best masked-question matches among the training questions not already taken.
    const fills = choices.filter((x) => !x.queryMatched).map((x) => x.id);
    expect(unguided.examples.map((e) => e.id).filter((id) => !matched.some((m) => m.id === id)).slice(0, fills.length)).toEqual(fills);
    expect(out.dail).toMatchObject({ draftSql: item.goldSql, maskedQuestion: questionSkeleton(item.question, schema) });
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(out.metrics).toEqual({
      'shots.candidates': 5, 'shots.relaxed': 0, 'shots.queryMatched': matched.length, 'shots.draftParsed': 1,
      'shots.meanQuestionSimilarity': mean(choices.map((x) => x.questionSimilarity)), 'shots.meanQuerySimilarity': mean(choices.map((x) => x.querySimilarity)),
    });
  });

  it('ranks by masked-question similarity alone when the draft has no SQL, as with τ = 0', async () => {
    const unguided = await candidates({ draft: { sql: null, parseError: 'no SQL' } });
    expect(unguided.metrics).toMatchObject({ 'shots.draftParsed': 0, 'shots.queryMatched': 0, 'shots.meanQuerySimilarity': 0 });
    expect(unguided.dail!.draftSql).toBeNull();
    const anyQuery = await candidates({ draft: { sql: item.goldSql } }, { dailThreshold: 0 });
    expect(anyQuery.examples.map((e) => e.id)).toEqual(unguided.examples.map((e) => e.id));
    expect(anyQuery.metrics['shots.queryMatched']).toBe(5);
    const sims = unguided.dail!.choices.map((x) => x.questionSimilarity);
    expect(sims).toEqual([...sims].sort((a, b) => b - a));
  });

  it('masks each training question with its own database\'s schema and the target with the target\'s', async () => {
    const schemaOf = (dbId: string) => dataset.databases.find((d) => d.dbId === dbId)!;
    // A training question from another database whose masks differ between its own schema and the target's.
    const asked = train().find((t) => t.dbId !== item.dbId && questionSkeleton(t.question, schemaOf(t.dbId)) !== questionSkeleton(t.question, schema))!;
    const ownMask = questionSkeleton(asked.question, schemaOf(asked.dbId));

    const sameDb = await candidates({ draft: { sql: null } }, { shots: 3 }, { item: { ...asked, itemId: 'dev-probe' }, schema: schemaOf(asked.dbId) }, 'minibench-spec-fresh-pool');
    expect(new Set(schemaCalls)).toEqual(new Set(train().map((t) => t.dbId)));
    expect(sameDb.dail!.maskedQuestion).toBe(ownMask);
    expect(sameDb.dail!.choices[0]).toMatchObject({ id: asked.itemId, questionSimilarity: 1 });

    const otherDb = await candidates({ draft: { sql: null } }, { shots: 20 }, { item: { ...asked, itemId: 'dev-probe', dbId: item.dbId }, schema });
    const targetMask = questionSkeleton(asked.question, schema);
    expect(otherDb.dail!.maskedQuestion).toBe(targetMask);
    const [a, b] = (await encoder.encodePooled([targetMask, ownMask], 'document')).map((v) => v.map((x) => x / Math.hypot(...v)));
    const cosine = a!.reduce((sum, x, i) => sum + x * b![i]!, 0);
    expect(cosine).toBeLessThan(0.9999);
    expect(otherDb.dail!.choices.find((x) => x.id === asked.itemId)!.questionSimilarity).toBeCloseTo(cosine, 5);
  });

  it('leaves the target out of its own pool and gives at most the training split when k exceeds it', async () => {
    const asked = train()[0]!;
    const target = { item: asked, schema: dataset.databases.find((d) => d.dbId === asked.dbId)! };
    const out = await candidates({ draft: { sql: asked.goldSql } }, { shots: 20 }, target);
    expect(out.examples).toHaveLength(20);
    expect(out.examples.map((e) => e.id)).not.toContain(asked.itemId);
  });
});

describe('ucs-sql sweep configs', () => {
  it('every configs/sweeps/ucs-sql-*.yaml validates and expands to distinct variants', () => {
    const { readdirSync, readFileSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
    const dir = join(repoRoot, 'configs', 'sweeps');
    const files = readdirSync(dir).filter((f) => f.startsWith('ucs-sql-') && f.endsWith('.yaml'));
    expect(files).toEqual(expect.arrayContaining(['ucs-sql-table3.yaml', 'ucs-sql-table5.yaml']));
    for (const f of files) {
      const config = parseSweepConfig(readFileSync(join(dir, f), 'utf8'), f);
      const vs = expandVariants(config);
      expect(new Set(vs.map((v) => v.key)).size).toBe(vs.length);
      for (const v of vs) expect(() => ucsSqlPipeline.graph(v)).not.toThrow();
    }
  });
});

describe('configs/sweeps/ucs-sql-table5.yaml', () => {
  it('compares DAIL and SS-QE selection at 5 shots, the full method otherwise', () => {
    const { readFileSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
    const vs = expandVariants(parseSweepConfig(readFileSync(join(repoRoot, 'configs', 'sweeps', 'ucs-sql-table5.yaml'), 'utf8'), 'ucs-sql-table5.yaml'));
    expect(vs.map((v) => [v.label, v.params.shotSelection, v.params.shots, v.params.dailThreshold])).toEqual([
      ['ucs-sql-dail-5-shot sim-strong', 'dail', 5, 0.9],
      ['ucs-sql-ss-qe-5-shot sim-strong', 'ss-qe', 5, 0.9],
    ]);
    const { shotSelection: _a, ...dailRest } = vs[0]!.params;
    const { shotSelection: _b, ...ssQeRest } = vs[1]!.params;
    expect(dailRest).toEqual(ssQeRest);
  });
});
