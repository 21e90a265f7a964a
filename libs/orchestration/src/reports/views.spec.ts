import type { StageTraceRow } from '@sqlsweep/db';
import { etaFromRates, rankAgainstBest, wilsonInterval } from './leaderboard';
import { scalarParams, stageTraceDto } from './views';

const row = (over: Partial<StageTraceRow>): StageTraceRow => ({
  stage: 'evaluate', stageKey: 'k', role: 'sql', output: null, trace: null, failure: null, inputTokens: null, cachedInputTokens: null,
  outputTokens: null, costUsd: null, latencyMs: null, simulated: null, createdAt: null, ...over,
});

describe('stageTraceDto', () => {
  it('reads prompt and response from an LLM trace', () => {
    const dto = stageTraceDto(row({ role: 'llm', stage: 'generate', trace: { prompt: [{ role: 'user', content: 'q' }], response: 'SELECT 1' }, createdAt: new Date(0), inputTokens: 12, simulated: true }));
    expect(dto).toEqual(expect.objectContaining({ status: 'done', prompt: [{ role: 'user', content: 'q' }], response: 'SELECT 1', sandbox: null, inputTokens: 12, simulated: true }));
  });

  it('shows the simulator report of a simulated stage, and none for a malformed or missing one', () => {
    const simulation = { probability: 0.62, features: { schemaRecall: 1, noiseTables: 3, skeletonMatch: true, hardness: 'medium' } };
    expect(stageTraceDto(row({ role: 'llm', trace: { response: 'SELECT 1', simulation }, createdAt: new Date(0) })).simulation).toEqual(simulation);
    expect(stageTraceDto(row({ role: 'llm', trace: { response: 'SELECT 1', simulation: { probability: 'high' } } })).simulation).toBeNull();
    expect(stageTraceDto(row({ role: 'llm', trace: { response: 'SELECT 1' } })).simulation).toBeNull();
  });

  it('takes the sandbox verdict of a prediction from `predicted` and of a gold run from the result itself', () => {
    expect(stageTraceDto(row({ output: { correct: false, predicted: { status: 'timeout' } }, createdAt: new Date() })).sandbox).toEqual({ status: 'timeout' });
    expect(stageTraceDto(row({ stage: 'gold', output: { status: 'ok', rows: [[1], [2]] }, createdAt: new Date() })).sandbox).toEqual({ status: 'ok', rows: 2 });
    expect(stageTraceDto(row({ output: { predicted: { status: 'error', message: 'no such column: x' } }, createdAt: new Date() })).sandbox).toEqual({ status: 'error', message: 'no such column: x' });
  });

  it('reports a failed stage with its error and a stage not yet run as pending', () => {
    expect(stageTraceDto(row({ failure: 'sandbox crashed' }))).toEqual(expect.objectContaining({ status: 'failed', error: 'sandbox crashed' }));
    expect(stageTraceDto(row({}))).toEqual(expect.objectContaining({ status: 'pending', error: null, sandbox: null, costUsd: 0 }));
  });
});

describe('etaFromRates', () => {
  it('divides the stage jobs left by the rate stage jobs completed at in the window', () => {
    // 20 + 30 left; 10 + 30 completed in the last 60 s: 50 / (40 / 60) = 75 s.
    expect(etaFromRates([{ planned: 40, done: 20, failed: 0 }, { planned: 40, done: 10, failed: 0 }], 40, 60)).toBe(75);
    // failed stages are settled: nothing left.
    expect(etaFromRates([{ planned: 10, done: 8, failed: 2 }], 0, 60)).toBe(0);
    // nothing completed in the window: unknown.
    expect(etaFromRates([{ planned: 10, done: 0, failed: 0 }], 0, 60)).toBeNull();
  });
});

describe('leaderboard statistics', () => {
  it('gives the Wilson interval of EX', () => {
    const [low, high] = wilsonInterval(80, 100);
    expect(low).toBeCloseTo(71.1, 1); // statsmodels proportion_confint(80, 100, method='wilson'): (0.7112, 0.8666)
    expect(high).toBeCloseTo(86.66, 1);
    expect(wilsonInterval(0, 0)).toEqual([0, 100]);
  });

  it('marks variants tied with the best when the paired interval of their difference includes zero', () => {
    const items = Array.from({ length: 100 }, (_, i) => `q${i}`);
    const outcomes = [
      ...items.map((itemId, i) => ({ variantId: 'best', itemId, correct: i < 90 })),
      ...items.map((itemId, i) => ({ variantId: 'close', itemId, correct: i < 89 })),
      ...items.map((itemId, i) => ({ variantId: 'far', itemId, correct: i < 50 })),
    ];
    const ranks = rankAgainstBest(outcomes, ['best', 'close', 'far']);
    expect(ranks.get('best')).toEqual({ vsBest: null, tiedWithBest: true });
    expect(ranks.get('close')).toEqual({ vsBest: expect.objectContaining({ delta: -1, pairedItems: 100 }), tiedWithBest: true });
    expect(ranks.get('far')!.tiedWithBest).toBe(false);
    expect(ranks.get('far')!.vsBest!.high).toBeLessThan(0);
  });
});

describe('scalarParams', () => {
  it('keeps scalar parameters only', () => {
    expect(scalarParams({ temperature: 0, shots: 4, model: 'x', flag: true, nested: { a: 1 }, list: [1] })).toEqual({ temperature: 0, shots: 4, model: 'x', flag: true });
    expect(scalarParams(null)).toEqual({});
  });
});
