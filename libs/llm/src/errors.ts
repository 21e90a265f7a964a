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
