import type { SimModelConfig } from './sim-config';
import type { LimitVerdict } from './token-bucket-limiter';

interface Charge {
  at: number;
  tokens: number;
}

function durationText(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return s >= 60 ? `${Math.floor(s / 60)}m${(s % 60).toFixed(0)}s` : `${s.toFixed(3).replace(/\.?0+$/, '')}s`;
}

/**
 * OpenAI's way of counting: a request is charged its prompt tokens plus its `max_tokens` (or `max_completion_tokens`)
 * at admission, against one token limit, in a rolling window (60 s; shorter in tests, with the per-minute limits
 * scaled to it). Nothing is given back when the answer turns out shorter.
 */
export class RollingWindowLimiter {
  private readonly charges: Charge[] = [];
  private readonly windowMs: number;
  private readonly maxRequests: number;
  private readonly maxTokens: number;
  private tokensInWindow = 0;

  constructor(private readonly cfg: SimModelConfig) {
    this.windowMs = cfg.windowSeconds * 1000;
    this.maxRequests = (cfg.rpm * cfg.windowSeconds) / 60;
    this.maxTokens = (cfg.tpm * cfg.windowSeconds) / 60;
  }

  private expire(now: number): void {
    while (this.charges.length > 0 && this.charges[0]!.at <= now - this.windowMs) this.tokensInWindow -= this.charges.shift()!.tokens;
  }

  /** When the window will have room for `requests` more requests and `tokens` more tokens. */
  private fitsAt(requests: number, tokens: number, now: number): number {
    let count = this.charges.length;
    let sum = this.tokensInWindow;
    for (const c of this.charges) {
      if (count + requests <= this.maxRequests && sum + tokens <= this.maxTokens) break;
      count -= 1;
      sum -= c.tokens;
      now = c.at + this.windowMs;
    }
    return now;
  }

  private headers(now: number): Record<string, string> {
    const untilEmpty = this.charges.length > 0 ? this.charges.at(-1)!.at + this.windowMs - now : 0;
    return {
      'x-ratelimit-limit-requests': String(this.cfg.rpm),
      'x-ratelimit-remaining-requests': String(Math.max(0, Math.floor(this.maxRequests - this.charges.length))),
      'x-ratelimit-reset-requests': durationText(untilEmpty),
      'x-ratelimit-limit-tokens': String(this.cfg.tpm),
      'x-ratelimit-remaining-tokens': String(Math.max(0, Math.floor(this.maxTokens - this.tokensInWindow))),
      'x-ratelimit-reset-tokens': durationText(untilEmpty),
    };
  }

  admit(inputTokens: number, maxTokens: number, now = Date.now()): LimitVerdict {
    this.expire(now);
    const tokens = inputTokens + maxTokens;
    if (tokens > this.maxTokens) return { ok: false, retryAfterMs: Number.POSITIVE_INFINITY, headers: this.headers(now) };
    const at = this.fitsAt(1, tokens, now);
    if (at > now) return { ok: false, retryAfterMs: Math.ceil(at - now), headers: this.headers(now) };
    this.charges.push({ at: now, tokens });
    this.tokensInWindow += tokens;
    return { ok: true, retryAfterMs: 0, headers: this.headers(now) };
  }

  /** Output was charged at admission (as max_tokens). */
  chargeOutput(_outputTokens: number): void {}
}
