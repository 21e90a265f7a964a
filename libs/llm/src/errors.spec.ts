import { isQuotaRefusal, LlmError, queueDisposition } from './errors';

describe('queueDisposition', () => {
  it('sends 429s back to waiting, pauses on quota, retries transient and fails permanent errors', () => {
    expect(queueDisposition(new LlmError('rate_limited', 'x', { retryAfterMs: 1500 }))).toEqual({ action: 'rate_limit', delayMs: 1500 });
    expect(queueDisposition(new LlmError('rate_limited', 'x'))).toEqual({ action: 'rate_limit', delayMs: 1000 });
    expect(queueDisposition(new LlmError('quota_exhausted', 'openai: insufficient_quota'))).toEqual({ action: 'pause_model', reason: 'openai: insufficient_quota' });
    for (const code of ['server', 'timeout', 'network'] as const) expect(queueDisposition(new LlmError(code, 'x'))).toEqual({ action: 'retry' });
    for (const code of ['bad_request', 'auth', 'config'] as const) expect(queueDisposition(new LlmError(code, 'x'))).toEqual({ action: 'fail' });
  });
});

describe('isQuotaRefusal', () => {
  const freeTier =
    'Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. ' +
    'Visit https://platform.openai.com/account/rate-limits to learn more. You can increase your rate limit by adding a payment method to your account at https://platform.openai.com/account/billing.';

  it('reads the code first: rate_limit_exceeded is a rate limit even when its text mentions billing', () => {
    expect(isQuotaRefusal({ status: 429, codes: ['rate_limit_exceeded', 'requests'], text: freeTier })).toBe(false);
    expect(isQuotaRefusal({ status: 429, codes: [undefined, 'rate_limit_error'], text: 'credit balance is too low' })).toBe(false);
  });

  it('reads insufficient_quota and billing errors as quota, whatever the text', () => {
    expect(isQuotaRefusal({ status: 429, codes: ['insufficient_quota'], text: 'You exceeded your current quota, please check your plan and billing details.' })).toBe(true);
    expect(isQuotaRefusal({ status: 402, codes: [null, 'billing_error'], text: 'payment required' })).toBe(true);
  });

  it("falls back to the text without a telling code: Anthropic's credit-balance 400 is quota, a bare billing mention is not", () => {
    expect(isQuotaRefusal({ status: 400, codes: ['invalid_request_error'], text: 'Your credit balance is too low to access the Anthropic API.' })).toBe(true);
    expect(isQuotaRefusal({ status: 429, codes: [], text: freeTier })).toBe(false);
    expect(isQuotaRefusal({ status: 400, codes: ['invalid_request_error'], text: 'messages: field required' })).toBe(false);
    expect(isQuotaRefusal({ status: 500, codes: ['insufficient_quota'], text: '' })).toBe(false);
  });
});
