import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LlmError } from './errors';
import type { ModelLimits } from './model-catalog';
import type { RateLimitObservation } from './providers/provider';
import type { LlmPriority } from './types';

export interface BudgetRequest {
  model: string;
  limits: ModelLimits;
  inputTokens: number;
  outputTokens: number;
  priority: LlmPriority;
  /** How long the concurrency slot is held at most (the call's timeout plus a margin). */
  leaseMs: number;
}

export interface BudgetLease {
  id: string;
  model: string;
  limits: ModelLimits;
  inputTokens: number;
  outputTokens: number;
  waitedMs: number;
}

export interface BudgetSettlement {
  /** Tokens the provider reported; omit both when the provider never counted the call (e.g. a 429). */
  inputTokens: number;
  outputTokens: number;
  /** The provider refused the call, so the request itself is given back too. */
  refundRequest?: boolean;
}

/** A rate budget shared by every process that spends a model's limits. */
export interface RateBudget {
  acquire(req: BudgetRequest): Promise<BudgetLease>;
  settle(lease: BudgetLease, actual: BudgetSettlement): Promise<void>;
  /** Lowers the budget to what the provider says is left. */
  observe(model: string, limits: ModelLimits, obs: RateLimitObservation): Promise<void>;
  /** No request for this model until `ms` from now (a 429's Retry-After). */
  blockFor(model: string, ms: number): Promise<void>;
  /** Quota exhausted: the model's work stops with this reason until resumed. */
  pause(model: string, reason: string): Promise<void>;
  resume(model: string): Promise<void>;
  pausedReason(model: string): Promise<string | null>;
}

export interface RedisRateBudgetOptions {
  redis: Redis;
  keyPrefix?: string;
  /** Share of each limit kept unused, against clock skew and token-count drift (default 0.02). */
  headroom?: number;
  /** Seconds of limit that may be spent at once; providers refill continuously over a minute (default 60). */
  burstSeconds?: number;
  /** Longest time acquire() waits before giving up with LlmError('rate_limited') so a queue can reschedule. */
  maxWaitMs?: number;
}

// Token buckets for requests (r), input tokens (i) and output tokens (o), refilled continuously from Redis's
// clock so every machine agrees. Concurrency is a sorted set of leases scored by expiry. Interactive callers
// that must wait register in a sorted set; nightly callers yield while any is registered.
const ACQUIRE = `
local bucket, leases, block, waiting, paused = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local rpm, itpm, otpm, conc = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local inTok, outTok, id, leaseMs, priority = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], tonumber(ARGV[8]), ARGV[9]
local scale, burst = tonumber(ARGV[10]), tonumber(ARGV[11])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('EXISTS', paused) == 1 then return {-2, 0} end
local blockedUntil = tonumber(redis.call('GET', block) or '0')
if blockedUntil > now then return {0, blockedUntil - now} end
local rate = {rpm * scale / 60000, itpm * scale / 60000, otpm * scale / 60000}
local cap = {rate[1] * burst * 1000, rate[2] * burst * 1000, rate[3] * burst * 1000}
local s = redis.call('HMGET', bucket, 'r', 'i', 'o', 't')
local last = tonumber(s[4]) or now
local lvl = {}
for k = 1, 3 do
  local v = tonumber(s[k])
  if v == nil then v = cap[k] end
  lvl[k] = math.min(cap[k], v + math.max(0, now - last) * rate[k])
end
redis.call('HSET', bucket, 'r', lvl[1], 'i', lvl[2], 'o', lvl[3], 't', now)
redis.call('PEXPIRE', bucket, 3600000)
redis.call('ZREMRANGEBYSCORE', waiting, '-inf', now)
if priority ~= 'interactive' and redis.call('ZCARD', waiting) > 0 then return {0, 50} end
redis.call('ZREMRANGEBYSCORE', leases, '-inf', now)
local wait = 0
if redis.call('ZCARD', leases) >= conc then wait = 20 end
local need = {math.min(1, cap[1]), math.min(inTok, cap[2]), math.min(outTok, cap[3])}
for k = 1, 3 do
  if lvl[k] < need[k] then wait = math.max(wait, math.ceil((need[k] - lvl[k]) / rate[k])) end
end
if wait > 0 then
  if priority == 'interactive' then redis.call('ZADD', waiting, now + wait + 1000, id) end
  return {0, wait}
end
redis.call('HSET', bucket, 'r', lvl[1] - need[1], 'i', lvl[2] - need[2], 'o', lvl[3] - need[3])
redis.call('ZADD', leases, now + leaseMs, id)
redis.call('PEXPIRE', leases, leaseMs + 60000)
redis.call('ZREM', waiting, id)
return {1, 0}
`;

// Reconciles a lease with reported usage: the difference between estimate and actual goes back into (or is
// taken from) the buckets, which may go into debt. Then the concurrency slot is freed.
const SETTLE = `
local bucket, leases = KEYS[1], KEYS[2]
local dr, di, do_, id = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local capR, capI, capO = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
redis.call('ZREM', leases, id)
if redis.call('EXISTS', bucket) == 0 then return 0 end
local s = redis.call('HMGET', bucket, 'r', 'i', 'o')
redis.call('HSET', bucket, 'r', math.min(capR, tonumber(s[1]) + dr), 'i', math.min(capI, tonumber(s[2]) + di), 'o', math.min(capO, tonumber(s[3]) + do_))
return 1
`;

const OBSERVE = `
local bucket = KEYS[1]
if redis.call('EXISTS', bucket) == 0 then return 0 end
local fields = {'r', 'i', 'o'}
for k = 1, 3 do
  local remaining = tonumber(ARGV[k])
  if remaining >= 0 then
    local v = tonumber(redis.call('HGET', bucket, fields[k]))
    if v > remaining then redis.call('HSET', bucket, fields[k], remaining) end
  end
end
return 1
`;

const BLOCK = `
local t = redis.call('TIME')
local untilMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
if untilMs > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1]) + 1000) end
return 1
`;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The shared budget in Redis: requests and tokens per minute and concurrency, across processes and machines. */
export class RedisRateBudget implements RateBudget {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly scale: number;
  private readonly burstSeconds: number;
  private readonly maxWaitMs: number;

  constructor(opts: RedisRateBudgetOptions) {
    this.redis = opts.redis;
    this.prefix = opts.keyPrefix ?? 'sqlsweep:llm-budget';
    this.scale = 1 - (opts.headroom ?? 0.02);
    this.burstSeconds = opts.burstSeconds ?? 60;
    this.maxWaitMs = opts.maxWaitMs ?? 60_000;
  }

  private key(model: string, part: string): string {
    return `${this.prefix}:{${model}}:${part}`;
  }

  private caps(limits: ModelLimits): [number, number, number] {
    const f = (this.scale * this.burstSeconds) / 60;
    return [limits.rpm * f, limits.inputTpm * f, limits.outputTpm * f];
  }

  async acquire(req: BudgetRequest): Promise<BudgetLease> {
    const id = randomUUID();
    const started = Date.now();
    const keys = ['bucket', 'leases', 'block', 'waiting', 'paused'].map((p) => this.key(req.model, p));
    for (;;) {
      const [granted, waitMs] = (await this.redis.eval(
        ACQUIRE,
        keys.length,
        ...keys,
        req.limits.rpm,
        req.limits.inputTpm,
        req.limits.outputTpm,
        req.limits.concurrency,
        req.inputTokens,
        req.outputTokens,
        id,
        req.leaseMs,
        req.priority,
        this.scale,
        this.burstSeconds,
      )) as [number, number];
      if (granted === 1) {
        return { id, model: req.model, limits: req.limits, inputTokens: req.inputTokens, outputTokens: req.outputTokens, waitedMs: Date.now() - started };
      }
      if (granted === -2) {
        const reason = (await this.pausedReason(req.model)) ?? 'paused';
        throw new LlmError('quota_exhausted', `${req.model}: paused: ${reason}`);
      }
      const waited = Date.now() - started;
      if (waited + waitMs > this.maxWaitMs) {
        throw new LlmError('rate_limited', `${req.model}: rate budget exhausted for the next ${waitMs} ms`, { retryAfterMs: waitMs });
      }
      // A little jitter so waiting processes do not all retry in the same millisecond.
      await sleep(waitMs + Math.random() * 5);
    }
  }

  async settle(lease: BudgetLease, actual: BudgetSettlement): Promise<void> {
    const [capR, capI, capO] = this.caps(lease.limits);
    await this.redis.eval(
      SETTLE,
      2,
      this.key(lease.model, 'bucket'),
      this.key(lease.model, 'leases'),
      actual.refundRequest ? 1 : 0,
      lease.inputTokens - actual.inputTokens,
      lease.outputTokens - actual.outputTokens,
      lease.id,
      capR,
      capI,
      capO,
    );
  }

  async observe(model: string, _limits: ModelLimits, obs: RateLimitObservation): Promise<void> {
    if (obs.remainingRequests === undefined && obs.remainingInputTokens === undefined && obs.remainingOutputTokens === undefined) return;
    await this.redis.eval(OBSERVE, 1, this.key(model, 'bucket'), obs.remainingRequests ?? -1, obs.remainingInputTokens ?? -1, obs.remainingOutputTokens ?? -1);
  }

  async blockFor(model: string, ms: number): Promise<void> {
    await this.redis.eval(BLOCK, 1, this.key(model, 'block'), Math.max(1, Math.ceil(ms)));
  }

  async pause(model: string, reason: string): Promise<void> {
    await this.redis.set(this.key(model, 'paused'), reason);
  }

  async resume(model: string): Promise<void> {
    await this.redis.del(this.key(model, 'paused'));
  }

  async pausedReason(model: string): Promise<string | null> {
    return this.redis.get(this.key(model, 'paused'));
  }
}
