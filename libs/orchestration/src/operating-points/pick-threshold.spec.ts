import { pickThreshold } from './pick-threshold';

// Recall falls and reduction rises with θ, as on every table-retrieval curve.
const curve = [
  { value: 2, recall: 1, itemRecall: 1, reductionRatio: 0.1, meanTablesKept: 9 },
  { value: 4, recall: 0.98, itemRecall: 0.95, reductionRatio: 0.3, meanTablesKept: 8.9 },
  { value: 4.5, recall: 0.91, itemRecall: 0.85, reductionRatio: 0.5, meanTablesKept: 6 },
  { value: 6, recall: 0.89, itemRecall: 0.8, reductionRatio: 0.62, meanTablesKept: 4 },
  { value: 13, recall: 0.667, itemRecall: 0.5, reductionRatio: 0.9, meanTablesKept: 2.1 },
];

describe('pickThreshold', () => {
  it('{ recall: r } takes the largest θ whose recall is still at least r', () => {
    expect(pickThreshold(curve, { recall: 0.9 }).value).toBe(4.5);
    expect(pickThreshold(curve, { recall: 0.91 }).value).toBe(4.5);
    expect(pickThreshold(curve, { recall: 0.6 }).value).toBe(13);
    expect(pickThreshold(curve, { recall: 1 }).value).toBe(2);
  });

  it('{ reduction: x } takes the smallest θ whose reduction ratio is at least x', () => {
    expect(pickThreshold(curve, { reduction: 0.6 }).value).toBe(6);
    expect(pickThreshold(curve, { reduction: 0.5 }).value).toBe(4.5);
  });

  it('does not depend on the order of the points', () => {
    expect(pickThreshold([...curve].reverse(), { recall: 0.9 }).value).toBe(4.5);
  });

  it('says what the curve reaches at best when the target is out of reach', () => {
    expect(() => pickThreshold(curve.slice(2), { recall: 0.95 })).toThrow('no threshold reaches recall@0.95: the best is recall 0.910 at 4.5');
    expect(() => pickThreshold(curve, { reduction: 0.95 })).toThrow('no threshold reaches reduction@0.95: the best is reduction 0.900 at 13');
    expect(() => pickThreshold([], { recall: 0.9 })).toThrow('no points');
  });
});
