import { mcnemar, pairedBootstrap, type PairedOutcome } from './statistics';

/** `counts` items of each kind (both right, only A right, only B right, both wrong), ids in order. */
function pairsOf(counts: { both: number; onlyA: number; onlyB: number; neither: number }): PairedOutcome[] {
  const kinds: Array<[number, boolean, boolean]> = [[counts.both, true, true], [counts.onlyA, true, false], [counts.onlyB, false, true], [counts.neither, false, false]];
  const out: PairedOutcome[] = [];
  for (const [n, a, b] of kinds) for (let i = 0; i < n; i++) out.push({ itemId: `q${out.length}`, a, b });
  return out;
}

describe('McNemar test', () => {
  // Reference values from scipy 1.17: binomtest(min, n, 0.5).pvalue and chi2.sf(statistic, 1).
  it.each([
    [10, 2, 4.083333333333333, 0.03857421875, true],
    [0, 7, 5.142857142857143, 0.015625, true],
    [3, 3, 0, 1, true],
    [30, 15, 4.355555555555555, 0.036888425707049914, false],
    [40, 12, 14.01923076923077, 0.00018095049043756332, false],
  ])('onlyA=%i onlyB=%i gives statistic %f and p %f', (onlyA, onlyB, statistic, pValue, exact) => {
    const r = mcnemar(pairsOf({ both: 50, onlyA, onlyB, neither: 20 }));
    expect(r).toMatchObject({ onlyA, onlyB, exact });
    expect(r.statistic).toBeCloseTo(statistic, 10);
    expect(r.pValue).toBeCloseTo(pValue, 6);
  });

  it('is symmetric in A and B and gives p = 1 without discordant pairs', () => {
    const ab = mcnemar(pairsOf({ both: 5, onlyA: 9, onlyB: 31, neither: 5 }));
    const ba = mcnemar(pairsOf({ both: 5, onlyA: 31, onlyB: 9, neither: 5 }));
    expect(ab.pValue).toBe(ba.pValue);
    expect(mcnemar(pairsOf({ both: 4, onlyA: 0, onlyB: 0, neither: 6 }))).toEqual({ onlyA: 0, onlyB: 0, statistic: 0, pValue: 1, exact: true });
  });

  it('refuses an empty or duplicated pairing, naming the item', () => {
    expect(() => mcnemar([])).toThrow(/no paired items/);
    expect(() => mcnemar([{ itemId: 'x', a: true, b: true }, { itemId: 'x', a: true, b: false }])).toThrow(/item "x" appears twice/);
  });
});

/** The textbook bootstrap, item by item, as the reference the count-based sampler must agree with. */
function naiveBootstrap(pairs: PairedOutcome[], resamples: number, confidence: number): { low: number; high: number } {
  let seed = 12345;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const deltas: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < pairs.length; i++) {
      const p = pairs[Math.floor(random() * pairs.length)];
      sum += Number(p.b) - Number(p.a);
    }
    deltas.push((100 * sum) / pairs.length);
  }
  deltas.sort((x, y) => x - y);
  const at = (q: number) => deltas[Math.round((resamples - 1) * q)];
  return { low: at((1 - confidence) / 2), high: at(1 - (1 - confidence) / 2) };
}

describe('paired bootstrap', () => {
  it.each([
    [{ both: 60, onlyA: 9, onlyB: 21, neither: 30 }, 0.95],
    [{ both: 10, onlyA: 4, onlyB: 1, neither: 5 }, 0.9],
    [{ both: 150, onlyA: 45, onlyB: 35, neither: 70 }, 0.95],
  ])('agrees with item-by-item resampling on %o at %f', (counts, confidence) => {
    const pairs = pairsOf(counts);
    const fast = pairedBootstrap(pairs, { resamples: 4000, confidence, seed: 5 });
    const naive = naiveBootstrap(pairs, 4000, confidence);
    // About five standard errors of the difference of two tail quantiles from 4,000 resamples each (0.3 of the
    // delta's standard deviation), plus one step of the delta's grid (100/n pp).
    const tolerance = 0.3 * Math.sqrt(counts.onlyA + counts.onlyB) * (100 / pairs.length) + 100 / pairs.length;
    expect(Math.abs(fast.low - naive.low)).toBeLessThanOrEqual(tolerance);
    expect(Math.abs(fast.high - naive.high)).toBeLessThanOrEqual(tolerance);
  });

  it('gives the exact delta and a degenerate interval when every item agrees', () => {
    expect(pairedBootstrap(pairsOf({ both: 30, onlyA: 0, onlyB: 0, neither: 10 }), { resamples: 500 })).toEqual({ delta: 0, low: 0, high: 0, resamples: 500 });
    expect(pairedBootstrap(pairsOf({ both: 0, onlyA: 12, onlyB: 0, neither: 0 }), { resamples: 200 })).toEqual({ delta: -100, low: -100, high: -100, resamples: 200 });
  });

  it('matches the normal approximation of the paired difference on a large sample', () => {
    // 400 items, 60 only B right, 20 only A right: delta 10 pp, se = sqrt((0.2 - 0.01) / 400) = 2.179 pp.
    const r = pairedBootstrap(pairsOf({ both: 200, onlyA: 20, onlyB: 60, neither: 120 }), { seed: 3, resamples: 4000 });
    const se = 100 * Math.sqrt((80 / 400 - 0.01) / 400);
    expect(r.delta).toBeCloseTo(10, 10);
    expect(r.resamples).toBe(4000);
    expect(Math.abs(r.low - (10 - 1.959964 * se))).toBeLessThan(0.35);
    expect(Math.abs(r.high - (10 + 1.959964 * se))).toBeLessThan(0.35);
  });

  it('is reproducible from its seed and widens with the confidence level', () => {
    const pairs = pairsOf({ both: 20, onlyA: 6, onlyB: 2, neither: 12 });
    expect(pairedBootstrap(pairs, { seed: 11, resamples: 2000 })).toEqual(pairedBootstrap(pairs, { seed: 11, resamples: 2000 }));
    const c90 = pairedBootstrap(pairs, { seed: 11, resamples: 2000, confidence: 0.9 });
    const c99 = pairedBootstrap(pairs, { seed: 11, resamples: 2000, confidence: 0.99 });
    expect(c99.low).toBeLessThan(c90.low);
    expect(c99.high).toBeGreaterThan(c90.high);
    expect(c90.delta).toBe(-10);
  });

  it('excludes zero for a clear drop and includes it for a small one', () => {
    expect(pairedBootstrap(pairsOf({ both: 30, onlyA: 15, onlyB: 1, neither: 14 }), { resamples: 2000 }).high).toBeLessThan(0);
    const small = pairedBootstrap(pairsOf({ both: 30, onlyA: 3, onlyB: 2, neither: 25 }), { resamples: 2000 });
    expect(small.low).toBeLessThan(0);
    expect(small.high).toBeGreaterThan(0);
  });

  it('refuses bad options with the option named', () => {
    const pairs = pairsOf({ both: 1, onlyA: 1, onlyB: 0, neither: 0 });
    expect(() => pairedBootstrap(pairs, { resamples: 0 })).toThrow(/resamples must be a positive integer/);
    expect(() => pairedBootstrap(pairs, { confidence: 1 })).toThrow(/confidence must be between 0 and 1/);
  });
});
