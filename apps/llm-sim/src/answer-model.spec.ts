import { answerLogit, answerProbability, commonDraw, type AnswerWeights } from './answer-model';
import type { PromptFeatures } from './prompt-features';

const weights: AnswerWeights = {
  intercept: 0.5, hardness: { easy: 1, medium: 0, hard: -1, extra: -2 }, schemaRecall: 2, noiseTables: -0.3, noiseColumns: -0.1,
  examples: 0.2, skeletonMatch: 0.7, decomposition: 0.3, evidence: 1, values: 0.3, feedbackError: 0.8, feedbackEmpty: 0.4,
  feedbackExplanation: 0.3, floor: 0,
};
const zeroShot: PromptFeatures = {
  schemaRecall: 1, goldReachable: true, noiseTables: 3, noiseColumns: 20, examples: 0, skeletonMatch: false, decomposition: false,
  evidence: false, values: false, feedbackError: false, feedbackEmpty: false, feedbackExplanation: false, hardness: 'medium',
};

describe('answerProbability', () => {
  it('is the logistic of the weighted features, terms counted per log1p', () => {
    const z = 0.5 + 0 + 2 * 1 - 0.3 * Math.log1p(3) - 0.1 * Math.log1p(20);
    expect(answerLogit(zeroShot, weights)).toBeCloseTo(z, 10);
    expect(answerProbability(zeroShot, weights)).toBeCloseTo(1 / (1 + Math.exp(-z)), 10);
  });

  it('is the floor when the gold is unreachable, whatever else the prompt gives', () => {
    const rich = { ...zeroShot, evidence: true, skeletonMatch: true, examples: 5 };
    expect(answerProbability({ ...rich, goldReachable: false }, weights)).toBe(0);
    expect(answerProbability({ ...rich, goldReachable: false }, { ...weights, floor: 0.05 })).toBe(0.05);
  });

  it('moves with each feature the way its weight says', () => {
    const p = (f: Partial<PromptFeatures>): number => answerProbability({ ...zeroShot, ...f }, weights);
    const base = p({});
    expect(p({ noiseTables: 8 })).toBeLessThan(base);
    expect(p({ schemaRecall: 0.8 })).toBeLessThan(base);
    expect(p({ examples: 4, skeletonMatch: true })).toBeGreaterThan(p({ examples: 4 }));
    expect(p({ feedbackError: true })).toBeGreaterThan(base);
    expect(p({ hardness: 'extra' })).toBeLessThan(p({ hardness: 'hard' }));
  });
});

describe('commonDraw', () => {
  it('is one uniform per (seed, model, question, sample index): equal parts, equal draw; question spacing ignored', () => {
    expect(commonDraw(1, 'sim-strong', 'How many singers?', 0)).toBe(commonDraw(1, 'sim-strong', '  how many   singers?', 0));
    expect(commonDraw(1, 'sim-strong', 'How many singers?', 0)).not.toBe(commonDraw(1, 'sim-strong', 'How many singers?', 1));
    expect(commonDraw(1, 'sim-strong', 'How many singers?', 0)).not.toBe(commonDraw(2, 'sim-strong', 'How many singers?', 0));
    expect(commonDraw(1, 'sim-strong', 'How many singers?', 0)).not.toBe(commonDraw(1, 'sim-weak', 'How many singers?', 0));
  });

  it('is uniform on [0, 1) across questions', () => {
    const draws = Array.from({ length: 4000 }, (_, i) => commonDraw(0, 'm', `question ${i}`, 0));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.02);
    expect(draws.filter((d) => d < 0.25).length / draws.length).toBeCloseTo(0.25, 1);
  });
});
