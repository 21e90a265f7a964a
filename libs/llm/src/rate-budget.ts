import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { LlmError } from './errors';
import type { RateLimitObservation } from './providers/provider';
import type { BudgetLimits } from './rate-accounting';
import type { LlmPriority } from './types';

export interface BudgetRequest {
  model: string;
  limits: BudgetLimits;
  /** Charged at admission: the single TPM's prompt + max_tokens, or ITPM's input (see rate-accounting.ts). */
  inputTokens: number;
  outputTokens: number;
  priority: LlmPriority;
  /** How long the concurrency slot is held at most (the call's timeout plus a margin). */
  leaseMs: number;
}

export interface BudgetLease {
  id: string;
  model: string;
  limits: BudgetLimits;
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
  /** settle() then observe() for the same model, as one step (after an answer: one round trip instead of two). */
  settleAndObserve(lease: BudgetLease, actual: BudgetSettlement, obs: RateLimitObservation): Promise<void>;
  /**
   * Learns from the provider's rate-limit headers: its per-minute limits (a declared limit above the server's is
   * replaced by it, for every process, for `learnedTtlMs`) and what is left now (the bucket is lowered to it).
   */
  observe(model: string, limits: BudgetLimits, obs: RateLimitObservation): Promise<void>;
  /** The limits the provider announced lately, where it did. */
  learnedLimits(model: string): Promise<{ rpm?: number; inputTpm?: number; outputTpm?: number }>;
  /**
   * No request for this model until `ms` from now (a 429's Retry-After); then the buckets refill from empty, so
   * the calls that waited are admitted at the budget's rate, never all at once.
   */
  blockFor(model: string, ms: number): Promise<void>;
  /** Quota exhausted: the model's work stops with this reason until resumed. */
  pause(model: string, reason: string): Promise<void>;
  resume(model: string): Promise<void>;
  pausedReason(model: string): Promise<string | null>;
}

export interface RedisRateBudgetOptions {
  /** One server, or a Cluster: every key of a model carries the hash tag {model}, so its scripts run in one slot. */
  redis: Redis | Cluster;
  keyPrefix?: string;
  /** Share of each limit kept unused, against clock skew and token-count drift (default 0.02). */
  headroom?: number;
  /** Seconds of limit that may be spent at once under token buckets that refill over a minute (default 60). */
  burstSeconds?: number;
  /**
   * The same under a rolling window (`single-tpm`, OpenAI): spending `rate x (60 + burst)` in some 60 s would be
   * refused, so the burst must stay within the headroom (default 1 s with 2 % headroom).
   */
  rollingBurstSeconds?: number;
  /** How long limits learned from headers replace declared ones (default 10 min; every response renews them). */
  learnedTtlMs?: number;
  /** Longest time acquire() waits before giving up with LlmError('rate_limited') so a queue can reschedule. */
  maxWaitMs?: number;
}

/** A Lua script run by its SHA1 (EVALSHA) under a command `name` defined on the connection. */
export interface RedisScript {
  name: string;
  keys: number;
  lua: string;
}

/** The script names defined per connection: each is defined once, so its SHA is known there from its first run on. */
const definedScripts = new WeakMap<Redis | Cluster, Set<string>>();

/**
 * Runs `script` with `keys` and `args` on `redis` (one server, Sentinel or Cluster; a connection several users
 * share). ioredis sends EVALSHA, and EVAL with the whole text only the first time on each socket or after Redis
 * answered NOSCRIPT (a restart, a failover, SCRIPT FLUSH).
 */
export function runScript(redis: Redis | Cluster, script: RedisScript, keys: string[], args: (string | number)[]): Promise<unknown> {
  let names = definedScripts.get(redis);
  if (!names) definedScripts.set(redis, (names = new Set()));
  if (!names.has(script.name)) {
    // Defining it again would make a new Script whose sockets have not loaded it: EVAL again, once per socket.
    redis.defineCommand(script.name, { numberOfKeys: script.keys, lua: script.lua });
    names.add(script.name);
  }
  return (redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[script.name](...keys, ...args);
}

// Token buckets for requests (r), input or single tokens (i) and output tokens (o), refilled continuously from
// Redis's clock so every machine agrees. A bucket may go into debt by one call larger than its capacity, so a call
// bigger than the burst is still admitted once the bucket is full. Limits learned from the provider's headers
// (KEYS[6]) replace declared ones that are higher. Concurrency is a sorted set of leases scored by expiry.
// Interactive callers that must wait register in a sorted set; nightly callers yield while any is registered.
const ACQUIRE_LUA = `
local bucket, leases, block, waiting, paused, learned = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local rpm, itpm, otpm, conc = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local inTok, outTok, id, leaseMs, priority = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], tonumber(ARGV[8]), ARGV[9]
local scale, burst = tonumber(ARGV[10]), tonumber(ARGV[11])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('EXISTS', paused) == 1 then return {-2, 0} end
local blockedUntil = tonumber(redis.call('GET', block) or '0')
if blockedUntil > now then return {0, blockedUntil - now} end
local l = redis.call('HMGET', learned, 'r', 'i', 'o')
local perMin = {rpm, itpm, otpm}
for k = 1, 3 do
  local v = tonumber(l[k])
  if v ~= nil and v < perMin[k] then perMin[k] = v end
end
local rate = {perMin[1] * scale / 60000, perMin[2] * scale / 60000, perMin[3] * scale / 60000}
local cap = {rate[1] * burst * 1000, rate[2] * burst * 1000, rate[3] * burst * 1000}
local s = redis.call('HMGET', bucket, 'r', 'i', 'o', 't')
local last = tonumber(s[4]) or now
local lvl = {}
for k = 1, 3 do
  local v = tonumber(s[k])
  if v == nil then v = cap[k] end
  lvl[k] = math.min(cap[k], v + math.max(0, now - last) * rate[k])
end
redis.call('HSET', bucket, 'r', lvl[1], 'i', lvl[2], 'o', lvl[3], 't', math.max(now, last))
redis.call('PEXPIRE', bucket, 3600000)
redis.call('ZREMRANGEBYSCORE', waiting, '-inf', now)
if priority ~= 'interactive' and redis.call('ZCARD', waiting) > 0 then return {0, 50} end
redis.call('ZREMRANGEBYSCORE', leases, '-inf', now)
local wait = 0
if redis.call('ZCARD', leases) >= conc then wait = 20 end
local take = {1, inTok, outTok}
for k = 1, 3 do
  local need = math.min(take[k], cap[k])
  if lvl[k] < need then wait = math.max(wait, math.ceil((need - lvl[k]) / rate[k])) end
end
if wait > 0 then
  if priority == 'interactive' then redis.call('ZADD', waiting, now + wait + 1000, id) end
  return {0, wait}
end
redis.call('HSET', bucket, 'r', lvl[1] - take[1], 'i', lvl[2] - take[2], 'o', lvl[3] - take[3])
redis.call('ZADD', leases, now + leaseMs, id)
redis.call('PEXPIRE', leases, leaseMs + 60000)
redis.call('ZREM', waiting, id)
return {1, 0}
`;
const ACQUIRE: RedisScript = { name: 'sqlsweepBudgetAcquire', keys: 6, lua: ACQUIRE_LUA };

// Reconciles a lease with reported usage: the difference between estimate and actual goes back into (or is
// taken from) the buckets, which may go into debt. Then the concurrency slot is freed.
// a: the changes of requests, tokens, output tokens; the lease's id; the three capacities.
const SETTLE_FN = `
local function settle(bucket, leases, a)
  local dr, di, do_, id = tonumber(a[1]), tonumber(a[2]), tonumber(a[3]), a[4]
  local capR, capI, capO = tonumber(a[5]), tonumber(a[6]), tonumber(a[7])
  redis.call('ZREM', leases, id)
  if redis.call('EXISTS', bucket) == 0 then return 0 end
  local s = redis.call('HMGET', bucket, 'r', 'i', 'o')
  redis.call('HSET', bucket, 'r', math.min(capR, tonumber(s[1]) + dr), 'i', math.min(capI, tonumber(s[2]) + di), 'o', math.min(capO, tonumber(s[3]) + do_))
  return 1
end
`;

// a 1-3: remaining requests, tokens, output tokens; 4-6: the provider's per-minute limits; -1 where not said;
// 7: how long the learned limits last.
const OBSERVE_FN = `
local function observe(bucket, learned, a)
  local fields = {'r', 'i', 'o'}
  for k = 1, 3 do
    local limit = tonumber(a[k + 3])
    if limit > 0 then redis.call('HSET', learned, fields[k], limit) end
  end
  redis.call('PEXPIRE', learned, tonumber(a[7]))
  if redis.call('EXISTS', bucket) == 0 then return 0 end
  for k = 1, 3 do
    local remaining = tonumber(a[k])
    if remaining >= 0 then
      local v = tonumber(redis.call('HGET', bucket, fields[k]))
      if v > remaining then redis.call('HSET', bucket, fields[k], remaining) end
    end
  end
  return 1
end
`;

const SETTLE: RedisScript = { name: 'sqlsweepBudgetSettle', keys: 2, lua: `${SETTLE_FN}return settle(KEYS[1], KEYS[2], ARGV)` };
const OBSERVE: RedisScript = { name: 'sqlsweepBudgetObserve', keys: 2, lua: `${OBSERVE_FN}return observe(KEYS[1], KEYS[2], ARGV)` };
// Both after an answer, in one round trip: the same functions, SETTLE's arguments then OBSERVE's.
const SETTLE_OBSERVE: RedisScript = {
  name: 'sqlsweepBudgetSettleObserve',
  keys: 3,
  lua: `${SETTLE_FN}${OBSERVE_FN}settle(KEYS[1], KEYS[2], {unpack(ARGV, 1, 7)})
return observe(KEYS[1], KEYS[3], {unpack(ARGV, 8, 14)})`,
};

// The block, and buckets emptied to refill from its end: what waited is then admitted at the budget's rate.
const BLOCK_LUA = `
local t = redis.call('TIME')
local untilMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
if untilMs > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1]) + 1000) end
local s = redis.call('HMGET', KEYS[2], 'r', 'i', 'o')
local lvl = {}
for k = 1, 3 do lvl[k] = math.min(0, tonumber(s[k]) or 0) end
redis.call('HSET', KEYS[2], 'r', lvl[1], 'i', lvl[2], 'o', lvl[3], 't', untilMs)
redis.call('PEXPIRE', KEYS[2], 3600000)
return 1
`;
const BLOCK: RedisScript = { name: 'sqlsweepBudgetBlock', keys: 2, lua: BLOCK_LUA };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The shared budget in Redis: requests and tokens per minute and concurrency, across processes and machines. */
export class RedisRateBudget implements RateBudget {
  private readonly redis: Redis | Cluster;
  private readonly prefix: string;
  private readonly scale: number;
  private readonly burstSeconds: number;
  private readonly rollingBurstSeconds: number;
  private readonly learnedTtlMs: number;
  private readonly maxWaitMs: number;
  /** Per model and priority, the last caller in line: only the first in line asks Redis, the others wait their turn here. */
  private readonly lines = new Map<string, Promise<void>>();

  constructor(opts: RedisRateBudgetOptions) {
    this.redis = opts.redis;
    this.prefix = opts.keyPrefix ?? 'sqlsweep:llm-budget';
    this.scale = 1 - (opts.headroom ?? 0.02);
    this.burstSeconds = opts.burstSeconds ?? 60;
    this.rollingBurstSeconds = opts.rollingBurstSeconds ?? 1;
    this.learnedTtlMs = opts.learnedTtlMs ?? 600_000;
    this.maxWaitMs = opts.maxWaitMs ?? 60_000;
  }

  private key(model: string, part: string): string {
    return `${this.prefix}:{${model}}:${part}`;
  }

  private burst(limits: BudgetLimits): number {
    return limits.accounting === 'single-tpm' ? this.rollingBurstSeconds : this.burstSeconds;
  }

  private caps(limits: BudgetLimits): [number, number, number] {
    const f = (this.scale * this.burst(limits)) / 60;
    return [limits.rpm * f, limits.inputTpm * f, limits.outputTpm * f];
  }

  /**
   * Waits until the budget admits the call. The callers of one process queue here, first come first served, and only
   * the first asks Redis (again when told to wait): a hundred calls waiting for a busy limit cost one script run per
   * admission and per refill wait, not a hundred.
   */
  async acquire(req: BudgetRequest): Promise<BudgetLease> {
    const started = Date.now();
    const line = `${req.model}\0${req.priority}`;
    const ahead = this.lines.get(line);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    this.lines.set(line, mine);
    try {
      if (ahead) await ahead;
      return await this.acquireFirstInLine(req, started);
    } finally {
      done();
      if (this.lines.get(line) === mine) this.lines.delete(line);
    }
  }

  private async acquireFirstInLine(req: BudgetRequest, started: number): Promise<BudgetLease> {
    const id = randomUUID();
    const keys = ['bucket', 'leases', 'block', 'waiting', 'paused', 'learned'].map((p) => this.key(req.model, p));
    for (;;) {
      const [granted, waitMs] = (await runScript(this.redis, ACQUIRE, keys, [
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
        this.burst(req.limits),
      ])) as [number, number];
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
      // Jitter so waiting processes do not all come back in the same millisecond (after a Retry-After they would).
      await sleep(waitMs + Math.random() * Math.min(50, 5 + waitMs * 0.1));
    }
  }

  async settle(lease: BudgetLease, actual: BudgetSettlement): Promise<void> {
    await runScript(this.redis, SETTLE, [this.key(lease.model, 'bucket'), this.key(lease.model, 'leases')], this.settleArgs(lease, actual));
  }

  async observe(model: string, _limits: BudgetLimits, obs: RateLimitObservation): Promise<void> {
    const args = this.observeArgs(obs);
    if (args) await runScript(this.redis, OBSERVE, [this.key(model, 'bucket'), this.key(model, 'learned')], args);
  }

  async settleAndObserve(lease: BudgetLease, actual: BudgetSettlement, obs: RateLimitObservation): Promise<void> {
    const args = this.observeArgs(obs);
    if (!args) return this.settle(lease, actual);
    const keys = ['bucket', 'leases', 'learned'].map((p) => this.key(lease.model, p));
    await runScript(this.redis, SETTLE_OBSERVE, keys, [...this.settleArgs(lease, actual), ...args]);
  }

  private settleArgs(lease: BudgetLease, actual: BudgetSettlement): (string | number)[] {
    const [capR, capI, capO] = this.caps(lease.limits);
    return [
      actual.refundRequest ? 1 : 0,
      lease.inputTokens - actual.inputTokens,
      lease.outputTokens - actual.outputTokens,
      lease.id,
      capR,
      capI,
      capO,
    ];
  }

  /** OBSERVE's arguments, or undefined when the headers said nothing. */
  private observeArgs(obs: RateLimitObservation): number[] | undefined {
    const values = [obs.remainingRequests, obs.remainingInputTokens, obs.remainingOutputTokens, obs.limitRequests, obs.limitInputTokens, obs.limitOutputTokens];
    if (values.every((v) => v === undefined)) return undefined;
    return [...values.map((v) => v ?? -1), this.learnedTtlMs];
  }

  async learnedLimits(model: string): Promise<{ rpm?: number; inputTpm?: number; outputTpm?: number }> {
    const [r, i, o] = await this.redis.hmget(this.key(model, 'learned'), 'r', 'i', 'o');
    return { ...(r ? { rpm: Number(r) } : {}), ...(i ? { inputTpm: Number(i) } : {}), ...(o ? { outputTpm: Number(o) } : {}) };
  }

  async blockFor(model: string, ms: number): Promise<void> {
    await runScript(this.redis, BLOCK, [this.key(model, 'block'), this.key(model, 'bucket')], [Math.max(1, Math.ceil(ms))]);
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
