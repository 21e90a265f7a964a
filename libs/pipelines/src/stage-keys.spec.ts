import { contentHash, expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { pipelines } from './registry';
import { keyItemStages, VariantKeyer } from './stage-keys';
import { TRAIN_SET_ITEM, trainSetOutput } from './train-sets';

const [variant] = expandVariants(parseSweepConfig('name: t\ndataset: minibench\nmodels: [sim-strong]\npipelines:\n  - pipeline: ucs-sql\n', 't.yaml'));
const ctx = { datasetVersion: 'v1', trainItemIds: ['train-1', 'train-2', 'train-3'] };

describe('VariantKeyer', () => {
  const keyer = new VariantKeyer(pipelines['ucs-sql'], variant, ctx);

  it('keys the train-items stages once per training item, and one training set per train-items stage read whole', () => {
    const train = keyer.trainItemStages();
    const sets = train.filter((s) => s.itemId === TRAIN_SET_ITEM);
    expect(new Set(train.filter((s) => !sets.includes(s)).map((s) => s.itemId))).toEqual(new Set(ctx.trainItemIds));
    expect(train.map((s) => s.stage)).toContain('ucs-sql.train-question');
    expect(sets.map((s) => s.stage).sort()).toEqual(['ucs-sql.train-foreign-keys[*]', 'ucs-sql.train-structure[*]']);
    expect(new Set(train.map((s) => s.key)).size).toBe(train.length);
    // A set lists its members by training item and is keyed by them: members that change make another set.
    const members = train.filter((s) => s.stage === 'ucs-sql.train-foreign-keys');
    const set = sets.find((s) => s.stage === 'ucs-sql.train-foreign-keys[*]')!;
    expect(set.inputs).toEqual(Object.fromEntries(members.map((s) => [s.itemId, s.key])));
    expect(set.key).toBe(contentHash({ stage: set.stage, output: trainSetOutput(set.inputs), dataset: 'v1' }));
    const otherTrain = new VariantKeyer(pipelines['ucs-sql'], variant, { ...ctx, trainItemIds: ctx.trainItemIds!.slice(1) });
    expect(otherTrain.trainItemStages().find((s) => s.stage === set.stage)!.key).not.toBe(set.key);
  });

  it('keys each evaluated item without its train-items instances, reading each training set through its one key', () => {
    const [a, b] = [keyer.itemStages('dev-1'), keyer.itemStages('dev-2')];
    expect(a.every((s) => s.itemId === 'dev-1')).toBe(true);
    expect(a.map((s) => s.stage)).toEqual(b.map((s) => s.stage));
    expect(a.filter((s, i) => s.key === b[i].key)).toEqual([]); // every stage of an item reads its item
    const candidates = a.find((s) => s.stage === 'ucs-sql.shot-candidates')!;
    // The content profile of a training question is its foreign-key step's output (content identifiers + join keys).
    const trainContent = keyer.trainItemStages().find((s) => s.stage === 'ucs-sql.train-foreign-keys[*]')!;
    expect(candidates.inputs['trainContent[*]']).toBe(trainContent.key);
    expect(Object.keys(candidates.inputs).filter((name) => name.includes('/'))).toEqual([]);
  });

  it('keys a stage reading a training set by the set\'s key, so by every member', () => {
    const candidates = keyer.itemStages('dev-1').find((s) => s.stage === 'ucs-sql.shot-candidates')!;
    expect(candidates.key).toBe(contentHash({ stage: candidates.stage, version: 1, template: null, params: candidates.params, inputs: candidates.inputs, dataset: 'v1', item: 'dev-1' }));
    const fewer = new VariantKeyer(pipelines['ucs-sql'], variant, { ...ctx, trainItemIds: ctx.trainItemIds!.slice(1) });
    expect(fewer.itemStages('dev-1').find((s) => s.stage === 'ucs-sql.shot-candidates')!.key).not.toBe(candidates.key);
  });

  it('plans no training set, and lists none, when the dataset has no training items', () => {
    const none = new VariantKeyer(pipelines['ucs-sql'], variant, { ...ctx, trainItemIds: [] });
    expect(none.trainItemStages()).toEqual([]);
    const candidates = none.itemStages('dev-1').find((s) => s.stage === 'ucs-sql.shot-candidates')!;
    expect(Object.keys(candidates.inputs).some((name) => name.endsWith('[*]'))).toBe(false);
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
