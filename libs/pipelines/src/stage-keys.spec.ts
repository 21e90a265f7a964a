import { contentHash, expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { pipelines } from './registry';
import { keyItemStages, VariantKeyer } from './stage-keys';

const [variant] = expandVariants(parseSweepConfig('name: t\ndataset: minibench\nmodels: [sim-strong]\npipelines:\n  - pipeline: ucs-sql\n', 't.yaml'));
const ctx = { datasetVersion: 'v1', trainItemIds: ['train-1', 'train-2', 'train-3'] };

describe('VariantKeyer', () => {
  const keyer = new VariantKeyer(pipelines['ucs-sql'], variant, ctx);

  it('keys the train-items stages once per training item, whatever item is evaluated', () => {
    const train = keyer.trainItemStages();
    expect(new Set(train.map((s) => s.itemId))).toEqual(new Set(ctx.trainItemIds));
    expect(train.map((s) => s.stage)).toContain('ucs-sql.train-question');
    expect(new Set(train.map((s) => s.key)).size).toBe(train.length);
  });

  it('keys each evaluated item without its train-items instances, reading all of them through `stage[*]`', () => {
    const [a, b] = [keyer.itemStages('dev-1'), keyer.itemStages('dev-2')];
    expect(a.every((s) => s.itemId === 'dev-1')).toBe(true);
    expect(a.map((s) => s.stage)).toEqual(b.map((s) => s.stage));
    expect(a.filter((s, i) => s.key === b[i].key)).toEqual([]); // every stage of an item reads its item
    const candidates = a.find((s) => s.stage === 'ucs-sql.shot-candidates')!;
    // The content profile of a training question is its foreign-key step's output (content identifiers + join keys).
    const trainContent = keyer.trainItemStages().filter((s) => s.stage === 'ucs-sql.train-foreign-keys');
    expect(Object.entries(candidates.inputs).filter(([name]) => name.startsWith('trainContent/')).map(([, key]) => key).sort())
      .toEqual(trainContent.map((s) => s.key).sort());
  });

  it('gives a stage at plan time every parameter its key depends on: its own and those upstream, nothing else', () => {
    const own = { model: 'sim-strong', temperature: 0.1, maxTokens: 512, sampleIndex: 0, cacheNamespace: '' };
    expect(keyer.planTimeParams('gold')).toEqual({});
    expect(keyer.planTimeParams('ucs-sql.question')).toEqual(own);
    expect(keyer.planTimeParams('ucs-sql.select-shots')).toEqual({ ...own, shots: 5, shotSelection: 'ss-qe', theta1: 2, theta2: 3, preselectAboveColumns: 30, preselectAboveAverageColumns: 6, linkingCodeAdditions: false });
    expect(keyer.itemStages('dev-1').find((s) => s.stage === 'ucs-sql.select-shots')!.params).toEqual(own);
    expect(() => keyer.planTimeParams('r3.rag')).toThrow('stage r3.rag is not in the graph of this variant');
  });

  it('hashes exactly what the key documents, in whatever order items are keyed', () => {
    const gold = keyer.itemStages('dev-2').find((s) => s.stage === 'gold')!;
    expect(gold.key).toBe(contentHash({ stage: 'gold', version: 1, template: null, params: {}, inputs: {}, dataset: 'v1', item: 'dev-2' }));
    const fresh = new VariantKeyer(pipelines['ucs-sql'], variant, ctx);
    fresh.itemStages('dev-9');
    expect(fresh.itemStages('dev-2')).toEqual(keyer.itemStages('dev-2'));
    expect(keyItemStages(pipelines['ucs-sql'], variant, { ...ctx, itemId: 'dev-2' })).toEqual([...keyer.trainItemStages(), ...keyer.itemStages('dev-2')]);
  });
});
