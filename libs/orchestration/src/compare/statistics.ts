import { mulberry32 } from '@sqlsweep/contracts';

/** Whether one item was answered correctly under A and under B (the same item, paired). */
export interface PairedOutcome { itemId: string; a: boolean; b: boolean }

export interface BootstrapOptions { resamples?: number; seed?: number; confidence?: number }
export interface BootstrapInterval { delta: number; low: number; high: number; resamples: number }
export interface McNemarResult { onlyA: number; onlyB: number; statistic: number; pValue: number; exact: boolean }

/** Below this many discordant pairs McNemar's p-value is the exact binomial one, not the chi-square approximation. */
const exactBelow = 25;

function assertPairs(pairs: PairedOutcome[], what: string): void {
  if (pairs.length === 0) throw new Error(`${what}: no paired items to compare`);
  const seen = new Set<string>();
  for (const p of pairs) {
    if (seen.has(p.itemId)) throw new Error(`${what}: item "${p.itemId}" appears twice; pairs must be one per item`);
    seen.add(p.itemId);
  }
}

/** Percentile of sorted values with linear interpolation between ranks. */
function quantile(sorted: Float64Array, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Log weights this far below the mode's (e^-40, under 1e-17 of the total) are left out of the tabulated CDF. */
const NEGLIGIBLE_LOG_WEIGHT = -40;

/**
 * Inverse-CDF sampler of Binomial(n, p), each draw a binary search. The CDF is tabulated outward from the mode until
 * the weights become negligible (about 9 standard deviations each side), not over all n + 1 values: with 20,000
 * paired items the bootstrap tabulates hundreds of these, and the full tables took most of a second. A draw
 * u >= 2^-32 (mulberry32's smallest non-zero value) never falls in the tails left out, so draws are those of the
 * full table.
 */
function binomialSampler(n: number, p: number): (u: number) => number {
  if (n === 0 || p <= 0) return () => 0;
  if (p >= 1) return () => n;
  const logOdds = Math.log(p) - Math.log1p(-p);
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const up: number[] = [];
  for (let k = mode, w = 0; k < n; k++) {
    w += Math.log((n - k) / (k + 1)) + logOdds;
    if (w < NEGLIGIBLE_LOG_WEIGHT) break;
    up.push(w);
  }
  const down: number[] = [];
  for (let k = mode, w = 0; k > 0; k--) {
    w -= Math.log((n - k + 1) / k) + logOdds;
    if (w < NEGLIGIBLE_LOG_WEIGHT) break;
    down.push(w);
  }
  const first = mode - down.length;
  const weights = [...down.reverse(), 0, ...up];
  const cdf = new Float64Array(weights.length);
  let total = 0;
  for (let i = 0; i < weights.length; i++) cdf[i] = total += Math.exp(weights[i]);
  for (let i = 0; i < cdf.length; i++) cdf[i] /= total;
  cdf[cdf.length - 1] = 1;
  return (u) => {
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid] >= u) hi = mid;
      else lo = mid + 1;
    }
    return first + lo;
  };
}

/**
 * Paired bootstrap of the execution-accuracy difference EX(B) - EX(A) in percentage points: items are resampled
 * with replacement (keeping each item's A and B outcomes together) and the interval is the percentile interval.
 *
 * Only the discordant items move the delta, so a resample is drawn from its counts rather than item by item: the
 * number of discordant draws D ~ Binomial(n, discordant/n), of which onlyB ~ Binomial(D, onlyB/discordant). That is
 * the same distribution as drawing n items, in O(log n) per resample instead of O(n) (BIRD dev with 10,000
 * resamples: milliseconds instead of a second on the orchestrator's event loop).
 */
export function pairedBootstrap(pairs: PairedOutcome[], opts: BootstrapOptions = {}): BootstrapInterval {
  assertPairs(pairs, 'paired bootstrap');
  return pairedBootstrapFromCounts({ n: pairs.length, ...discordantCounts(pairs) }, opts);
}

/** The counts a paired comparison rests on: paired items, and the items only A and only B got right. */
export interface PairedCounts { n: number; onlyA: number; onlyB: number }

/** `pairedBootstrap` from the counts alone (all it depends on): for pairs counted in SQL rather than loaded. */
export function pairedBootstrapFromCounts(counts: PairedCounts, opts: BootstrapOptions = {}): BootstrapInterval {
  const { n, onlyA, onlyB } = counts;
  if (!(n > 0) || onlyA < 0 || onlyB < 0 || onlyA + onlyB > n) throw new Error(`paired bootstrap: no paired items to compare, or counts that do not fit (n ${n}, only A ${onlyA}, only B ${onlyB})`);
  const resamples = opts.resamples ?? 10_000;
  const confidence = opts.confidence ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`paired bootstrap: resamples must be a positive integer, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1)) throw new Error(`paired bootstrap: confidence must be between 0 and 1, got ${confidence}`);
  const discordant = onlyA + onlyB;
  const delta = (100 * (onlyB - onlyA)) / n;
  const random = mulberry32(opts.seed ?? 0);
  const drawDiscordant = binomialSampler(n, discordant / n);
  const drawOnlyB = new Map<number, (u: number) => number>();
  const deltas = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    const d = drawDiscordant(random());
    let sampler = drawOnlyB.get(d);
    if (!sampler) drawOnlyB.set(d, (sampler = binomialSampler(d, discordant === 0 ? 0 : onlyB / discordant)));
    const b = sampler(random());
    deltas[r] = (100 * (2 * b - d)) / n;
  }
  deltas.sort();
  const tail = (1 - confidence) / 2;
  return { delta, low: quantile(deltas, tail), high: quantile(deltas, 1 - tail), resamples };
}

/** Complementary error function (Numerical Recipes' Chebyshev fit, relative error below 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}

/** Two-sided exact binomial p-value of k or fewer successes in n trials at p = 1/2, doubled and capped at 1. */
function exactBinomialTwoSided(k: number, n: number): number {
  let logC = 0; // log C(n, 0)
  let tail = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logC - n * Math.LN2);
  }
  return Math.min(1, 2 * tail);
}

/** Pairs only A got right, and pairs only B got right. */
function discordantCounts(pairs: readonly PairedOutcome[]): { onlyA: number; onlyB: number } {
  let onlyA = 0;
  let onlyB = 0;
  for (const p of pairs) {
    if (p.a && !p.b) onlyA++;
    else if (p.b && !p.a) onlyB++;
  }
  return { onlyA, onlyB };
}

/**
 * McNemar's test on the discordant pairs. The statistic is the continuity-corrected chi-square
 * (|onlyA - onlyB| - 1)^2 / (onlyA + onlyB); the p-value is exact (binomial) when fewer than 25 pairs disagree.
 */
export function mcnemar(pairs: PairedOutcome[]): McNemarResult {
  assertPairs(pairs, 'McNemar test');
  return mcnemarFromCounts(discordantCounts(pairs));
}

/** `mcnemar` from the discordant counts alone. */
export function mcnemarFromCounts({ onlyA, onlyB }: { onlyA: number; onlyB: number }): McNemarResult {
  const discordant = onlyA + onlyB;
  if (discordant === 0) return { onlyA, onlyB, statistic: 0, pValue: 1, exact: true };
  const statistic = Math.max(0, Math.abs(onlyA - onlyB) - 1) ** 2 / discordant;
  const exact = discordant < exactBelow;
  // Chi-square with one degree of freedom: P(X > s) = erfc(sqrt(s / 2)).
  const pValue = exact ? exactBinomialTwoSided(Math.min(onlyA, onlyB), discordant) : erfc(Math.sqrt(statistic / 2));
  return { onlyA, onlyB, statistic, pValue, exact };
}
