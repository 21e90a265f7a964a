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
  /** Stop the model's work with this status; do not retry in a loop (BullMQ: pause, then `UnrecoverableError`). */
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
