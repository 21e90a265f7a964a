import type { SpiderHardness } from '@sqlsweep/datasets';
import { answerProbability, commonDraw, type AnswerWeights } from '../answer-model';
import type { GoldIndex } from '../gold-index';
import { HARDNESS_LEVELS, promptFeatures, type PromptFeatures } from '../prompt-features';
import { fitLogistic, type FitTerm } from './logistic-fit';
import { promptText, type CalibrationItem } from './spider-calibration-set';

/** A simulated model calibrated against a real system's official verdicts, on the prompts that system was given. */
export interface CalibrationTarget {
  model: string;
  system: string;
  prompt: 'zeroShotPrompt' | 'dailPrompt';
  verdict: 'chatgptZeroShot' | 'dailSqlGpt4';
  /** Largest allowed distance of the simulated rate from the real one, overall and per hardness (null: reported only). */
  overallTolerance: number;
  hardnessTolerance: number | null;
}

export const CALIBRATION_TARGETS: readonly CalibrationTarget[] = [
  { model: 'sim-chatgpt', system: 'ChatGPT zero-shot', prompt: 'zeroShotPrompt', verdict: 'chatgptZeroShot', overallTolerance: 0.03, hardnessTolerance: 0.08 },
  { model: 'sim-gpt4', system: 'DAIL-SQL + GPT-4', prompt: 'dailPrompt', verdict: 'dailSqlGpt4', overallTolerance: 0.03, hardnessTolerance: 0.08 },
];

/** The seed and sample index the simulator answers with by default (apps/llm-sim main.ts `--seed 0`, first sample). */
export const DEFAULT_SEED = 0;
const SAMPLE_INDEX = 0;

/**
 * Where the fit starts and what it keeps for terms the Spider prompts cannot tell apart (no evidence, no feedback,
 * one number of examples): the hand-set effect sizes of sim-strong in configs/llm-sim.yaml (log-odds; each hint helps,
 * each noise hurts), copied here so that the script fits the same weights whatever that model's config says. The
 * calibration moves only the hardness offsets and the terms the data varies in.
 */
export const PRIOR_WEIGHTS: AnswerWeights = {
  intercept: 0,
  hardness: { easy: 0, medium: 0, hard: 0, extra: 0 },
  schemaRecall: 2,
  noiseTables: -0.25,
  noiseColumns: -0.12,
  examples: 0.15,
  skeletonMatch: 0.5,
  decomposition: 0.3,
  evidence: 1,
  values: 0.3,
  feedbackError: 0.9,
  feedbackEmpty: 0.5,
  feedbackExplanation: 0.3,
  floor: 0,
};

/** One item as a simulated model sees it: the features of its prompt, the real system's verdict, the model's draw. */
export interface CalibrationRow {
  question: string;
  hardness: SpiderHardness;
  features: PromptFeatures;
  verdict: 0 | 1;
  draw: number;
}

/** Reads every item's prompt as the simulator does: the target found in the text, then its features. */
export function calibrationRows(set: readonly CalibrationItem[], index: GoldIndex, target: CalibrationTarget, seed = DEFAULT_SEED): CalibrationRow[] {
  return set.map((c) => {
    const text = promptText(c[target.prompt]);
    const gold = index.findTarget(text);
    if (!gold || gold.question !== c.item.question || gold.dbId !== c.item.dbId) {
      throw new Error(`calibration: the simulator finds ${gold ? `"${gold.question}"` : 'no item'} in the ${target.prompt} of ${c.item.itemId} ("${c.item.question}")`);
    }
    return { question: gold.question, hardness: c.hardness, features: promptFeatures(text, gold, index), verdict: c[target.verdict], draw: commonDraw(seed, target.model, gold.question, SAMPLE_INDEX) };
  });
}

export interface RateFigures { overall: number; hardness: Record<SpiderHardness, number> }

function rates(rows: readonly CalibrationRow[], value: (r: CalibrationRow) => number): RateFigures {
  const mean = (rs: readonly CalibrationRow[]): number => rs.reduce((s, r) => s + value(r), 0) / rs.length;
  const hardness = Object.fromEntries(HARDNESS_LEVELS.map((h) => [h, mean(rows.filter((r) => r.hardness === h))])) as Record<SpiderHardness, number>;
  return { overall: mean(rows), hardness };
}

export interface CalibrationFigures {
  /** The real system's execution accuracy. */
  official: RateFigures;
  /** The simulated model's, as the simulator decides (its common draw below the probability). */
  simulated: RateFigures;
  /** The mean probability: what the simulated model scores on average over seeds. */
  expected: RateFigures;
}

export function calibrationFigures(rows: readonly CalibrationRow[], weights: AnswerWeights): CalibrationFigures {
  return {
    official: rates(rows, (r) => r.verdict),
    simulated: rates(rows, (r) => (r.draw < answerProbability(r.features, weights) ? 1 : 0)),
    expected: rates(rows, (r) => answerProbability(r.features, weights)),
  };
}

/** What keeps the figures from meeting the target: empty when calibrated. */
export function calibrationProblems(figures: CalibrationFigures, target: CalibrationTarget): string[] {
  const problems: string[] = [];
  const off = (what: string, sim: number, real: number, tolerance: number): void => {
    if (Math.abs(sim - real) > tolerance) problems.push(`${target.model} ${what}: ${sim.toFixed(3)}, ${target.system} ${real.toFixed(3)} (allowed ±${tolerance})`);
  };
  off('overall', figures.simulated.overall, figures.official.overall, target.overallTolerance);
  if (target.hardnessTolerance !== null) {
    for (const h of HARDNESS_LEVELS) off(h, figures.simulated.hardness[h], figures.official.hardness[h], target.hardnessTolerance);
  }
  return problems;
}

type Scalar = Exclude<keyof AnswerWeights, 'hardness' | 'intercept' | 'floor'>;

/** How each feature enters the log-odds (answer-model.ts answerLogit), with its ridge and sign for the fit. */
const FEATURE_TERMS: ReadonlyArray<{ name: Scalar; value: (f: PromptFeatures) => number; ridge: number; sign: 'nonnegative' | 'nonpositive' }> = [
  { name: 'schemaRecall', value: (f) => f.schemaRecall, ridge: 5, sign: 'nonnegative' },
  { name: 'noiseTables', value: (f) => Math.log1p(f.noiseTables), ridge: 5, sign: 'nonpositive' },
  { name: 'noiseColumns', value: (f) => Math.log1p(f.noiseColumns), ridge: 5, sign: 'nonpositive' },
  { name: 'examples', value: (f) => Math.log1p(f.examples), ridge: 5, sign: 'nonnegative' },
  { name: 'skeletonMatch', value: (f) => Number(f.skeletonMatch), ridge: 2, sign: 'nonnegative' },
  { name: 'decomposition', value: (f) => Number(f.decomposition), ridge: 5, sign: 'nonnegative' },
  { name: 'evidence', value: (f) => Number(f.evidence), ridge: 5, sign: 'nonnegative' },
  { name: 'values', value: (f) => Number(f.values), ridge: 5, sign: 'nonnegative' },
  { name: 'feedbackError', value: (f) => Number(f.feedbackError), ridge: 5, sign: 'nonnegative' },
  { name: 'feedbackEmpty', value: (f) => Number(f.feedbackEmpty), ridge: 5, sign: 'nonnegative' },
  { name: 'feedbackExplanation', value: (f) => Number(f.feedbackExplanation), ridge: 5, sign: 'nonnegative' },
];

const varies = (values: readonly number[]): boolean => values.some((v) => v !== values[0]);

export interface FittedWeights {
  weights: AnswerWeights;
  /** Terms fitted (the rest stay at the prior: the prompts do not vary in them). */
  fitted: string[];
  /** Fitted terms held at their prior because the data pulled them across their sign. */
  heldAtPrior: string[];
  /** Per hardness, the shift added after the fit so that the seed's draws score the real system's rate. */
  drawCorrection: Record<SpiderHardness, number>;
}

/**
 * Fits a model's weights to the real system's verdicts: a logistic regression (IRLS, ridge towards PRIOR_WEIGHTS)
 * of the verdicts on the hardness offsets (the intercept stays at the prior, the offsets carry each level) and on
 * every feature term that varies over the prompts; a term whose fit crosses its sign is held at its prior. Then, because the
 * simulator decides by one draw per item and not by the mean, each hardness offset is shifted to the middle of the
 * interval where the seed's draws score exactly the real system's count at that level.
 */
export function fitWeights(rows: readonly CalibrationRow[], prior: AnswerWeights = PRIOR_WEIGHTS): FittedWeights {
  const reachable = rows.filter((r) => r.features.goldReachable);
  const hardnessTerms: FitTerm[] = HARDNESS_LEVELS.map((h) => ({ name: `hardness.${h}`, values: reachable.map((r) => Number(r.hardness === h)), prior: prior.hardness[h], ridge: 1e-3 }));
  const allTerms: FitTerm[] = FEATURE_TERMS.map((t) => ({ name: t.name, values: reachable.map((r) => t.value(r.features)), prior: prior[t.name], ridge: t.ridge, sign: t.sign }));
  const featureTerms = allTerms.filter((t) => varies(t.values));
  // The intercept and the terms held at their prior enter as a fixed offset.
  const held = allTerms.filter((t) => !varies(t.values));
  const offset = reachable.map((_, i) => held.reduce((z, t) => z + t.prior * t.values[i]!, prior.intercept));
  const fit = fitLogistic([...hardnessTerms, ...featureTerms], reachable.map((r) => r.verdict), offset);
  const weights: AnswerWeights = { ...prior, hardness: { ...prior.hardness } };
  for (const h of HARDNESS_LEVELS) weights.hardness[h] = fit.coefficients[`hardness.${h}`]!;
  for (const t of featureTerms) weights[t.name as Scalar] = fit.coefficients[t.name]!;
  const drawCorrection = {} as Record<SpiderHardness, number>;
  for (const h of HARDNESS_LEVELS) {
    const level = rows.filter((r) => r.hardness === h);
    const shift = shiftToCount(level, weights, h, level.reduce((s, r) => s + r.verdict, 0));
    weights.hardness[h] += shift;
    drawCorrection[h] = shift;
  }
  return { weights: rounded(weights), fitted: [...hardnessTerms, ...featureTerms].map((t) => t.name).filter((n) => !fit.clamped.includes(n)), heldAtPrior: fit.clamped, drawCorrection };
}

/** How many of `rows` the draws score right with `shift` added to hardness h's offset. */
function countRight(rows: readonly CalibrationRow[], weights: AnswerWeights, h: SpiderHardness, shift: number): number {
  const w = { ...weights, hardness: { ...weights.hardness, [h]: weights.hardness[h] + shift } };
  return rows.filter((r) => r.draw < answerProbability(r.features, w)).length;
}

/** The middle of the shifts of hardness h's offset at which the draws score `count` right (the count rises with the shift). */
function shiftToCount(rows: readonly CalibrationRow[], weights: AnswerWeights, h: SpiderHardness, count: number): number {
  // The lowest shift reaching `count`, and the lowest reaching `count + 1`: bisection on the monotone step function.
  const lowest = (k: number): number => {
    let lo = -20;
    let hi = 20;
    if (countRight(rows, weights, h, hi) < k) return hi;
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (countRight(rows, weights, h, mid) >= k) hi = mid;
      else lo = mid;
    }
    return hi;
  };
  const from = lowest(count);
  const to = count >= rows.length ? from + 0.5 : lowest(count + 1);
  return (from + to) / 2;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Weights rounded to 4 decimals, as the config stores them (the fit is judged after rounding). */
function rounded(w: AnswerWeights): AnswerWeights {
  const out = { ...w, hardness: { ...w.hardness } };
  for (const h of HARDNESS_LEVELS) out.hardness[h] = round4(w.hardness[h]);
  for (const k of Object.keys(out) as Array<keyof AnswerWeights>) if (k !== 'hardness') (out[k] as number) = round4(w[k] as number);
  return out;
}
