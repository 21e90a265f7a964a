import type { SimModelConfig } from './sim-config';

interface Bucket {
  level: number;
  capacity: number;
  perMs: number;
}

export interface LimitVerdict {
  ok: boolean;
  /** Time until the request would fit, when refused. */
  retryAfterMs: number;
  headers: Record<string, string>;
}

function bucket(perMinute: number, burstSeconds: number): Bucket {
  const capacity = (perMinute * burstSeconds) / 60;
  return { level: capacity, capacity, perMs: perMinute / 60_000 };
}

function durationText(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return s >= 60 ? `${Math.floor(s / 60)}m${(s % 60).toFixed(0)}s` : `${s.toFixed(3).replace(/\.?0+$/, '')}s`;
}

/** Per-model token buckets for requests, input tokens and output tokens, refilled continuously like the providers'. */
export class TokenBucketLimiter {
  private readonly requests: Bucket;
  private readonly input: Bucket;
  private readonly output: Bucket;
  private last: number;

  constructor(private readonly cfg: SimModelConfig, now = Date.now()) {
    this.requests = bucket(cfg.rpm, cfg.burstSeconds);
    this.input = bucket(cfg.tpm, cfg.burstSeconds);
    this.output = bucket(cfg.outputTpm, cfg.burstSeconds);
    this.last = now;
  }

  private refill(now: number): void {
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    for (const b of [this.requests, this.input, this.output]) b.level = Math.min(b.capacity, b.level + elapsed * b.perMs);
  }

  private headers(now: number): Record<string, string> {
    const reset = (b: Bucket) => durationText((b.capacity - b.level) / b.perMs);
    return {
      'x-ratelimit-limit-requests': String(this.cfg.rpm),
      'x-ratelimit-remaining-requests': String(Math.max(0, Math.floor(this.requests.level))),
      'x-ratelimit-reset-requests': reset(this.requests),
      'x-ratelimit-limit-tokens': String(this.cfg.tpm),
      'x-ratelimit-remaining-tokens': String(Math.max(0, Math.floor(this.input.level))),
      'x-ratelimit-reset-tokens': reset(this.input),
      'anthropic-ratelimit-requests-limit': String(this.cfg.rpm),
      'anthropic-ratelimit-requests-remaining': String(Math.max(0, Math.floor(this.requests.level))),
      'anthropic-ratelimit-requests-reset': new Date(now + (this.requests.capacity - this.requests.level) / this.requests.perMs).toISOString(),
      'anthropic-ratelimit-input-tokens-limit': String(this.cfg.tpm),
      'anthropic-ratelimit-input-tokens-remaining': String(Math.max(0, Math.floor(this.input.level))),
      'anthropic-ratelimit-output-tokens-limit': String(this.cfg.outputTpm),
      'anthropic-ratelimit-output-tokens-remaining': String(Math.max(0, Math.floor(this.output.level))),
    };
  }

  /** Admits a request of `inputTokens` (takes one request and its input tokens) or says how long to wait. */
  admit(inputTokens: number, _maxTokens = 0, now = Date.now()): LimitVerdict {
    this.refill(now);
    if (inputTokens > this.input.capacity) {
      return { ok: false, retryAfterMs: Number.POSITIVE_INFINITY, headers: this.headers(now) };
    }
    const waits = [
      (1 - this.requests.level) / this.requests.perMs,
      (inputTokens - this.input.level) / this.input.perMs,
      // Output tokens are charged after the answer; a bucket in debt blocks new requests until it recovers.
      (0 - this.output.level) / this.output.perMs,
    ];
    const wait = Math.max(0, ...waits);
    if (wait > 0) return { ok: false, retryAfterMs: Math.ceil(wait), headers: this.headers(now) };
    this.requests.level -= 1;
    this.input.level -= inputTokens;
    return { ok: true, retryAfterMs: 0, headers: this.headers(now) };
  }

  chargeOutput(outputTokens: number, now = Date.now()): void {
    this.refill(now);
    this.output.level -= outputTokens;
  }
}
