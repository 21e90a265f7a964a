import { z } from 'zod';
import { normalizeQuestion } from './gold-index';
import type { PromptFeatures } from './prompt-features';
import { seededRng } from './rng';

const finiteWeight = z.number().finite();

/**
 * A simulated model's logistic answer model (configs/llm-sim.yaml `weights:`): the log-odds of answering with the
 * gold are `intercept + hardness[h] + schemaRecall * recall + noiseTables * log1p(#noise tables) + ...`, each
 * boolean feature adding its weight when present. Every term named, none defaulted.
 */
export const answerWeightsSchema = z
  .object({
    intercept: finiteWeight,
    hardness: z.object({ easy: finiteWeight, medium: finiteWeight, hard: finiteWeight, extra: finiteWeight }).strict(),
    schemaRecall: finiteWeight,
    /** Per log1p(noiseTables). */
    noiseTables: finiteWeight,
    /** Per log1p(noiseColumns). */
    noiseColumns: finiteWeight,
    /** Per log1p(examples). */
    examples: finiteWeight,
    skeletonMatch: finiteWeight,
    decomposition: finiteWeight,
    evidence: finiteWeight,
    values: finiteWeight,
    feedbackError: finiteWeight,
    feedbackEmpty: finiteWeight,
    feedbackExplanation: finiteWeight,
    /** Probability of the gold when a gold table is missing from the prompt; normally 0. */
    floor: z.number().min(0).max(1),
  })
  .strict();

export type AnswerWeights = z.infer<typeof answerWeightsSchema>;

/** The log-odds of the gold for these features (before the floor). */
export function answerLogit(f: PromptFeatures, w: AnswerWeights): number {
  const flag = (on: boolean, weight: number): number => (on ? weight : 0);
  return (
    w.intercept
    + w.hardness[f.hardness]
    + w.schemaRecall * f.schemaRecall
    + w.noiseTables * Math.log1p(f.noiseTables)
    + w.noiseColumns * Math.log1p(f.noiseColumns)
    + w.examples * Math.log1p(f.examples)
    + flag(f.skeletonMatch, w.skeletonMatch)
    + flag(f.decomposition, w.decomposition)
    + flag(f.evidence, w.evidence)
    + flag(f.values, w.values)
    + flag(f.feedbackError, w.feedbackError)
    + flag(f.feedbackEmpty, w.feedbackEmpty)
    + flag(f.feedbackExplanation, w.feedbackExplanation)
  );
}

/** Probability of answering with the gold: the logistic of answerLogit, never below `floor`; `floor` when the gold is unreachable. */
export function answerProbability(f: PromptFeatures, w: AnswerWeights): number {
  if (!f.goldReachable) return w.floor;
  return Math.max(w.floor, 1 / (1 + Math.exp(-answerLogit(f, w))));
}

/**
 * The one uniform draw of (seed, model, question, sample index) that every prompt for that question is judged by
 * (common random numbers): the prompt and the temperature play no part, so a prompt with a higher probability can
 * only turn a wrong answer right, and the same prompt always gets the same verdict.
 */
export function commonDraw(seed: number, model: string, question: string, sampleIndex: number): number {
  return seededRng(seed, 'common-draw', model, normalizeQuestion(question), sampleIndex)();
}
