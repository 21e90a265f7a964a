import { join } from 'node:path';
import { expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { loadDataset, type DatabaseSchema } from '@sqlsweep/datasets';
import type { LlmResponse } from '@sqlsweep/llm';
import type { LlmStage, StageContext, StageItem } from '../../stage-context';
import { stageImplementations } from '../../registry';
import { baselinesMethod } from './few-shot';
import { fixedShots, randomShots, type SelectedShots } from './shot-selection';

const repoRoot = join(__dirname, '..', '..', '..', '..', '..');

describe('few-shot baselines on minibench', () => {
  let train: StageItem[];
  let dev: StageItem[];
  let schema: DatabaseSchema;

  beforeAll(async () => {
    const dataset = await loadDataset({ format: 'minibench', path: join(repoRoot, 'data/minibench/dist') });
    const toStage = (i: (typeof dataset.items)[number]): StageItem => ({ itemId: i.id, dbId: i.dbId, question: i.question, evidence: i.evidence ?? null, goldSql: i.goldSql });
    train = dataset.items.filter((i) => i.split === 'train').map(toStage);
    dev = dataset.items.filter((i) => i.split === 'dev').map(toStage);
    schema = dataset.databases.find((d) => d.dbId === dev[0].dbId)!;
  });

  it('fixed shots are the same for every item, depend on the seed and not on the pool order', () => {
    const a = fixedShots(train, 3, 0);
    expect(a).toHaveLength(3);
    expect(fixedShots([...train].reverse(), 3, 0)).toEqual(a);
    expect(fixedShots(train, 3, 1).map((s) => s.itemId)).not.toEqual(a.map((s) => s.itemId));
    expect(fixedShots(train, 5, 0).slice(0, 3)).toEqual(a);
  });

  it('random shots differ between items, are reproducible, and never show the item itself', () => {
    const one = randomShots(train, 3, 0, dev[0]).map((s) => s.itemId);
    const two = randomShots(train, 3, 0, dev[1]).map((s) => s.itemId);
    expect(one).toHaveLength(3);
    expect(one).not.toEqual(two);
    expect(randomShots(train, 3, 0, dev[0]).map((s) => s.itemId)).toEqual(one);
    expect(randomShots(train, 200, 0, train[0]).map((s) => s.itemId)).not.toContain(train[0].itemId);
  });

  const run = async (stage: string, params: Record<string, number>, item: StageItem, pool = train) => {
    const impl = stageImplementations[stage];
    if (impl.kind !== 'compute') throw new Error(`${stage} is a compute stage`);
    const ctx = { item, params, inputs: {}, services: { dataset: { trainItems: async () => pool } } } as unknown as StageContext;
    return (await impl.run(ctx)).output as SelectedShots;
  };

  it('select stages read the train split', async () => {
    const fixed = await run('fixed-few-shot.select', { shots: 2, shotSeed: 0 }, dev[0]);
    expect(fixed).toEqual({ shots: fixedShots(train, 2, 0), metrics: { 'shots.count': 2 } });
    const random = await run('random-few-shot.select', { shots: 2, shotSeed: 0 }, dev[0]);
    expect(random.shots).toEqual(randomShots(train, 2, 0, dev[0]));
    await expect(run('fixed-few-shot.select', { shots: 2, shotSeed: 0 }, dev[0], [])).rejects.toThrow(/shots=2 needs training examples/);
    expect(await run('fixed-few-shot.select', { shots: 0, shotSeed: 0 }, dev[0], [])).toEqual({ shots: [], metrics: { 'shots.count': 0 } });
  });

  it('renders the shots before the target question, in the zero-shot style', () => {
    const shots = fixedShots(train, 2, 0);
    const params = { model: 'sim-strong', temperature: 0, maxTokens: 512, sampleIndex: 0, cacheNamespace: '', shots: 2 };
    const gen = stageImplementations['few-shot.generate'] as LlmStage;
    const call = gen.prompt({ item: dev[0], schema, params, inputs: { shots: { shots, metrics: {} } } } as unknown as StageContext);
    expect(call.messages).toMatchSnapshot();
    const user = call.messages[1].content;
    expect(user.lastIndexOf(dev[0].question)).toBeGreaterThan(user.indexOf(shots[1].question));
    const estimate = gen.estimate!({ item: dev[0], schema, params });
    expect(estimate.messages[1].content.split('Question: ').length - 1).toBe(3);
    expect(gen.parse({ output: '```sql\nSELECT 1;\n```' } as LlmResponse, { inputs: {} } as unknown as StageContext)).toEqual({ sql: 'SELECT 1' });
  });

  it('both pipelines end in evaluate of few-shot.generate, fed by their own selection', () => {
    const config = parseSweepConfig('name: t\ndataset: minibench\nmodels: [m]\npipelines:\n  - pipeline: fixed-few-shot\n  - pipeline: random-few-shot\n', 't.yaml');
    for (const v of expandVariants(config)) {
      const graph = baselinesMethod.pipelines[v.pipeline].graph(v);
      expect(graph.map((n) => n.stage)).toEqual(['gold', `${v.pipeline}.select`, 'few-shot.generate', 'evaluate']);
      expect(graph[2].inputs).toEqual({ shots: `${v.pipeline}.select` });
      expect(v.params).toMatchObject({ shots: 3, shotSeed: 0, temperature: 0 });
    }
  });
});
