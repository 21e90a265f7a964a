import { expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { pipelines, TRAIN_SET_ITEM, VariantKeyer } from '@sqlsweep/pipelines';
import { stageChunks, stageKindOrder } from './stage-chunks';

describe('stageChunks', () => {
  const config = parseSweepConfig([
    'name: chunks', 'dataset: d', 'split: dev', 'models: [sim-strong, sim-weak]', 'pipelines:',
    '  - { pipeline: zero-shot }', '  - { pipeline: dr-chain, grid: { k1: [1], k2: [1] } }', '',
  ].join('\n'), 'chunks.yaml');
  const variants = expandVariants(config).map((v, i) => ({ ...v, id: `v${i}` }));
  const keyed = variants.map((variant) => ({
    variant, keyer: new VariantKeyer(pipelines[variant.pipeline], variant, { datasetVersion: 'x', trainItemIds: ['t1', 't2'] }),
  }));
  const items = ['i1', 'i2', 'i3'];
  const all = keyed.flatMap(({ variant, keyer }) => [...keyer.trainItemStages(), ...items.flatMap((i) => keyer.itemStages(i))].map((s) => `${variant.id} ${s.itemId} ${s.stage} ${s.key}`));

  it('lists every stage once, in chunks of at most the size asked, whatever the size', () => {
    for (const size of [1, 7, 1_000]) {
      const chunks = [...stageChunks(keyed, items, size)];
      expect(chunks.every((c) => c.length >= 1 && c.length <= size)).toBe(true);
      expect(chunks.slice(0, -1).every((c) => c.length === size)).toBe(true);
      const listed = chunks.flat().map(({ stage: s }) => `${s.variantId} ${s.itemId} ${s.stage} ${s.stageKey}`);
      expect([...listed].sort()).toEqual([...all].sort());
    }
  });

  it('lists the train-items stages first, then item by item every variant', () => {
    const listed = [...stageChunks(keyed, items, 5)].flat().map(({ stage: s }) => s);
    const firstItemStage = listed.findIndex((s) => items.includes(s.itemId));
    expect(listed.slice(0, firstItemStage).every((s) => ['t1', 't2', TRAIN_SET_ITEM].includes(s.itemId))).toBe(true);
    expect(firstItemStage).toBeGreaterThan(0);
    const itemOrder = listed.slice(firstItemStage).map((s) => s.itemId);
    expect(itemOrder).toEqual([...itemOrder].sort());
    expect(new Set(listed.slice(firstItemStage).filter((s) => s.itemId === 'i1').map((s) => s.variantId)).size).toBe(variants.length);
  });

  it('refuses a chunk size below 1', () => {
    expect(() => [...stageChunks(keyed, items, 0)]).toThrow('plan chunk size must be at least 1, got 0');
  });

  it('orders stage kinds as a variant-by-variant listing first meets them', () => {
    const graphs = variants.map((v) => pipelines[v.pipeline].graph(v));
    const variantByVariant = keyed.flatMap(({ keyer }) => [...keyer.trainItemStages(), ...keyer.itemStages('i1')].map((s) => s.stage));
    expect(stageKindOrder(graphs, true)).toEqual([...new Set(variantByVariant)]);
    expect(stageKindOrder(graphs, false).some((k) => k.startsWith('dr-chain.train-'))).toBe(false);
  });
});
