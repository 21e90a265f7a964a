export type LlmErrorCode =
  | 'rate_limited'
  | 'quota_exhausted'
  | 'server'
  | 'timeout'
  | 'network'
  | 'bad_request'
  | 'auth'
  | 'config';

const RETRYABLE: Record<LlmErrorCode, boolean> = {
  rate_limited: true,
  quota_exhausted: false,
  server: true,
  timeout: true,
  network: true,
  bad_request: false,
  auth: false,
  config: false,
};

export class LlmError extends Error {
  readonly code: LlmErrorCode;
  readonly retryAfterMs?: number;
  readonly retryable: boolean;
  readonly status?: number;

  constructor(code: LlmErrorCode, message: string, opts: { retryAfterMs?: number; status?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'LlmError';
    this.code = code;
    this.retryable = RETRYABLE[code];
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
    if (opts.status !== undefined) this.status = opts.status;
  }
}

export function isLlmError(err: unknown): err is LlmError {
  return err instanceof LlmError;
}

/** What a job queue should do with a failed LLM call. */
export type QueueDisposition =
  /** Put the job back to waiting for `delayMs` (BullMQ: `await worker.rateLimit(delayMs); throw Worker.RateLimitError()`). */
  | { action: 'rate_limit'; delayMs: number }
  /**
   * The model's work waits until someone resumes it (`sqlsweep models resume`): no attempt spent, no retry loop
   * against the provider (BullMQ: move the job to delayed and look again later; the shared budget holds calls back).
   */
  | { action: 'pause_model'; reason: string }
  /** Throw to let the queue's backoff retry it. */
  | { action: 'retry' }
  /** Never succeeds as is (BullMQ: `UnrecoverableError`). */
  | { action: 'fail' };

export function queueDisposition(err: unknown): QueueDisposition {
  if (!(err instanceof LlmError)) return { action: 'retry' };
  switch (err.code) {
    case 'rate_limited':
      return { action: 'rate_limit', delayMs: Math.max(1, Math.ceil(err.retryAfterMs ?? 1_000)) };
    case 'quota_exhausted':
      return { action: 'pause_model', reason: err.message };
    default:
      return err.retryable ? { action: 'retry' } : { action: 'fail' };
  }
}

/** What a provider's refusal carries that says why: its status, the error's `code`/`type` fields (any nesting) and text. */
export interface ProviderRefusal {
  status: number;
  /** `code` and `type` values of the error body (OpenAI: `error.code`, `error.type`; Anthropic: `error.error.type`). */
  codes: Array<string | null | undefined>;
  text: string;
}

const RATE_LIMIT_CODES = new Set(['rate_limit_exceeded', 'rate_limit_error', 'requests', 'tokens']);
const QUOTA_CODES = new Set(['insufficient_quota', 'billing_error', 'billing_hard_limit_reached']);
/** Only for refusals without a code that says either: OpenAI's quota sentence and Anthropic's credit-balance 400. */
const QUOTA_TEXT = /insufficient_quota|exceeded your current quota|credit balance is too low/i;

/**
 * Whether a refusal means the account's quota or credit is spent (the model must stop until someone acts) rather
 * than a rate limit or a bad request. The code decides first: `rate_limit_exceeded` is a rate limit whatever its text
 * says (OpenAI's free-tier 429s mention "adding a payment method ... /account/billing"); the text decides only when
 * no code does.
 */
export function isQuotaRefusal(r: ProviderRefusal): boolean {
  if (![400, 402, 403, 429].includes(r.status)) return false;
  const codes = r.codes.filter((c): c is string => typeof c === 'string').map((c) => c.toLowerCase());
  if (codes.some((c) => QUOTA_CODES.has(c))) return true;
  if (codes.some((c) => RATE_LIMIT_CODES.has(c))) return false;
  return QUOTA_TEXT.test(r.text);
}
