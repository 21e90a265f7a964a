import { LlmError, queueDisposition } from './errors';

describe('queueDisposition', () => {
  it('sends 429s back to waiting, pauses on quota, retries transient and fails permanent errors', () => {
    expect(queueDisposition(new LlmError('rate_limited', 'x', { retryAfterMs: 1500 }))).toEqual({ action: 'rate_limit', delayMs: 1500 });
    expect(queueDisposition(new LlmError('rate_limited', 'x'))).toEqual({ action: 'rate_limit', delayMs: 1000 });
    expect(queueDisposition(new LlmError('quota_exhausted', 'openai: insufficient_quota'))).toEqual({ action: 'pause_model', reason: 'openai: insufficient_quota' });
    for (const code of ['server', 'timeout', 'network'] as const) expect(queueDisposition(new LlmError(code, 'x'))).toEqual({ action: 'retry' });
    for (const code of ['bad_request', 'auth', 'config'] as const) expect(queueDisposition(new LlmError(code, 'x'))).toEqual({ action: 'fail' });
  });
});
