import { randomUUID } from 'node:crypto';
import { connectionWarnings, type ThrottledWarnings } from '@sqlsweep/config';
import { newRedisClient, type RedisClient } from './connection';

/** Extends the lease when this owner holds it, else takes it when free (SET NX PX). 1 when held afterwards. */
const HOLD = `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/**
 * The lease's scripts as commands of its connection: sent by SHA (EVALSHA), their text only on a socket's first run or
 * after NOSCRIPT.
 */
type LeaseCommands = {
  leaseHold(key: string, owner: string, ttlMs: string): Promise<unknown>;
  leaseRelease(key: string, owner: string): Promise<unknown>;
};

/**
 * A lease in Redis that one owner at a time holds: taken with SET NX PX, kept by renewing it within `ttlMs`, and lost
 * to another owner when not renewed (its holder died or cannot reach Redis). Not a lock for correctness: whatever
 * runs under it must stay safe if two holders overlap for a moment.
 */
export class RedisLease {
  readonly owner = randomUUID();
  private readonly redis: RedisClient & LeaseCommands;
  private held = false;

  constructor(redisUrl: string, readonly key: string, readonly ttlMs: number, warnings: ThrottledWarnings = connectionWarnings()) {
    // A command fails after one reconnection attempt instead of waiting for Redis: an unreachable Redis means the
    // lease is not held, and the caller tries again later.
    const redis = newRedisClient(redisUrl, { maxRetriesPerRequest: 1 });
    redis.defineCommand('leaseHold', { numberOfKeys: 1, lua: HOLD });
    redis.defineCommand('leaseRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as RedisClient & LeaseCommands;
    this.redis.on('error', warnings.listener('redis'));
  }

  /** Whether this owner held the lease at its last `hold`. */
  get isHeld(): boolean {
    return this.held;
  }

  /** Takes the lease when free, or renews it when this owner holds it; false when another owner does or Redis is away. */
  async hold(): Promise<boolean> {
    try {
      this.held = Number(await this.redis.leaseHold(this.key, this.owner, String(this.ttlMs))) === 1;
    } catch {
      this.held = false;
    }
    return this.held;
  }

  /** Gives the lease up (when this owner holds it) and disconnects. */
  async close(): Promise<void> {
    if (this.held) await this.redis.leaseRelease(this.key, this.owner).catch(() => undefined);
    this.held = false;
    this.redis.disconnect();
  }
}
