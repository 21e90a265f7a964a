import type { StageTraceRow } from '@sqlsweep/db';
import { etaSeconds } from './leaderboard';
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

describe('etaSeconds', () => {
  it('extrapolates the pace since the start over what is left', () => {
    expect(etaSeconds(new Date(0), new Date(10_000), 10, 30)).toBe(20);
    expect(etaSeconds(new Date(0), null, 0, 30)).toBeNull();
    expect(etaSeconds(new Date(0), new Date(5_000), 30, 30)).toBe(0);
  });
});

describe('scalarParams', () => {
  it('keeps scalar parameters only', () => {
    expect(scalarParams({ temperature: 0, shots: 4, model: 'x', flag: true, nested: { a: 1 }, list: [1] })).toEqual({ temperature: 0, shots: 4, model: 'x', flag: true });
    expect(scalarParams(null)).toEqual({});
  });
});
