import { createHash, randomUUID } from 'node:crypto';
import type { RedisClient } from '@sqlsweep/queue';
import type { SharedExecutions, TimedExecutionResult } from '@sqlsweep/sql-sandbox';

/** The stored result when there is one; else a claim taken (or renewed by its holder) for ARGV[2] ms. */
const LOOKUP_OR_CLAIM = `
local result = redis.call('GET', KEYS[1])
if result then return {result, 0} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'', 1} end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return {'', 1}
end
return {'', 0}`;

/** Stores ARGV[2] (a result, or UNSHARED) for ARGV[3] ms, then drops the claim if ARGV[1] holds it. */
const PUT_AND_RELEASE = `
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1`;

/** Results larger than this are not shared: the processes waiting for them run the query themselves. */
const MAX_SHARED_BYTES = 1024 * 1024;
/** Stored in place of a verdict that is not shared (too large, or the pool's own error). */
const UNSHARED = '-';

/**
 * The sandbox's slow queries shared by the workers of one Redis and queue prefix (SandboxPool `shared`): each worker
 * ran the same runaway prediction once, a core for up to the whole deadline each. Keys are hashed; both of a query's
 * keys carry one hash tag, so a Redis Cluster keeps them on one node.
 */
export class RedisSharedExecutions implements SharedExecutions {
  private readonly owner = randomUUID();

  constructor(private readonly redis: RedisClient, private readonly prefix: string) {}

  async lookupOrClaim(key: string, ttlMs: number): Promise<{ result?: TimedExecutionResult; claimed: boolean; unshared?: boolean }> {
    const [result, claimed] = (await this.redis.eval(LOOKUP_OR_CLAIM, 2, ...this.keysOf(key), this.owner, Math.ceil(ttlMs))) as [string, number];
    if (result === UNSHARED) return { claimed: false, unshared: true };
    return result ? { result: JSON.parse(result) as TimedExecutionResult, claimed: false } : { claimed: claimed === 1 };
  }

  async putAndRelease(key: string, result: TimedExecutionResult | undefined, ttlMs: number): Promise<void> {
    const text = result ? JSON.stringify(result) : UNSHARED;
    const stored = Buffer.byteLength(text) <= MAX_SHARED_BYTES ? text : UNSHARED;
    await this.redis.eval(PUT_AND_RELEASE, 2, ...this.keysOf(key), this.owner, stored, Math.ceil(ttlMs));
  }

  private keysOf(key: string): [string, string] {
    const hash = createHash('sha256').update(key).digest('hex');
    return [`${this.prefix}:sql:{${hash}}:result`, `${this.prefix}:sql:{${hash}}:claim`];
  }
}
