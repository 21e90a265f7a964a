import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { runScript, type RedisScript } from './rate-budget';

// Registers the caller until now + ttl (Redis's clock, as the budget's), drops the lapsed ones, counts the live ones.
const HEARTBEAT_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], ttl * 2)
return redis.call('ZCARD', KEYS[1])
`;
const HEARTBEAT: RedisScript = { name: 'sqlsweepModelCallersHeartbeat', keys: 1, lua: HEARTBEAT_LUA };

/**
 * The processes calling a model lately, in Redis beside the model's rate budget (`<prefix>:{<model>}:callers`): each
 * sizes its LLM concurrency to its share of the model's limits. A process that stops calling (or dies) lapses after
 * `ttlMs`.
 */
export class ModelCallers {
  readonly id: string;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
    private readonly ttlMs = 15_000,
    id?: string,
  ) {
    this.id = id ?? randomUUID();
  }

  private key(model: string): string {
    return `${this.prefix}:{${model}}:callers`;
  }

  /** Registers this process as a caller of each model; returns how many processes call each (this one included). */
  async heartbeat(models: string[]): Promise<Map<string, number>> {
    const counts = await Promise.all(models.map((m) => runScript(this.redis, HEARTBEAT, [this.key(m)], [this.id, this.ttlMs]) as Promise<number>));
    return new Map(models.map((m, i) => [m, Number(counts[i])]));
  }

  /** Leaves at once (shutdown), so the others take up the share without waiting for the lapse. */
  async leave(models: string[]): Promise<void> {
    await Promise.all(models.map((m) => this.redis.zrem(this.key(m), this.id)));
  }
}
