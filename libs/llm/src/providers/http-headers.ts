import type { RateLimitObservation } from './provider';

type HeaderSource = { get(name: string): string | null } | undefined | null;

function num(headers: HeaderSource, name: string): number | undefined {
  const v = headers?.get(name);
  if (v === null || v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: HeaderSource): number | undefined {
  const ms = num(headers, 'retry-after-ms');
  if (ms !== undefined) return Math.max(0, ms);
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function rateLimitObservation(headers: HeaderSource): RateLimitObservation {
  const obs: RateLimitObservation = {};
  const requests = num(headers, 'x-ratelimit-remaining-requests') ?? num(headers, 'anthropic-ratelimit-requests-remaining');
  const input = num(headers, 'x-ratelimit-remaining-tokens') ?? num(headers, 'anthropic-ratelimit-input-tokens-remaining');
  const output = num(headers, 'anthropic-ratelimit-output-tokens-remaining');
  if (requests !== undefined) obs.remainingRequests = requests;
  if (input !== undefined) obs.remainingInputTokens = input;
  if (output !== undefined) obs.remainingOutputTokens = output;
  const limitRequests = num(headers, 'x-ratelimit-limit-requests') ?? num(headers, 'anthropic-ratelimit-requests-limit');
  const limitInput = num(headers, 'x-ratelimit-limit-tokens') ?? num(headers, 'anthropic-ratelimit-input-tokens-limit');
  const limitOutput = num(headers, 'anthropic-ratelimit-output-tokens-limit');
  if (limitRequests !== undefined && limitRequests > 0) obs.limitRequests = limitRequests;
  if (limitInput !== undefined && limitInput > 0) obs.limitInputTokens = limitInput;
  if (limitOutput !== undefined && limitOutput > 0) obs.limitOutputTokens = limitOutput;
  return obs;
}

export function isSimulated(headers: HeaderSource): boolean {
  return headers?.get('x-sqlsweep-simulated') === 'true';
}
