import { connectionWarnings, parseRedisUrl, type RedisAddress, type ThrottledWarnings } from '@sqlsweep/config';
import IORedis, { Cluster, type Redis, type RedisOptions } from 'ioredis';

/** A connection to one server, a Sentinel-managed primary (both `Redis`), or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** What a connection may set beyond its address: retries, reconnection timing. */
export type RedisClientOptions = Pick<RedisOptions, 'maxRetriesPerRequest' | 'enableReadyCheck' | 'lazyConnect' | 'retryStrategy' | 'connectionName'>;

/**
 * A Redis client for REDIS_URL in any of its forms (parseRedisUrl). Through Sentinel the client asks the Sentinels for
 * the primary on every (re)connection, checks that the server it reached is a primary (a demoted one is left for the
 * next), and listens for the Sentinels' switch-master so that a failover is followed at once rather than at the next
 * error. A Redis Cluster client finds the slots' owners from the seed nodes and follows MOVED/ASK redirections; every
 * multi-key command and script of the system keeps its keys in one slot by a hash tag (queueKeyPrefix, the budget's
 * `{model}`).
 */
export function newRedisClient(redisUrl: string, options: RedisClientOptions = {}): RedisClient {
  const address = parseRedisUrl(redisUrl);
  if (address.kind === 'server') return new IORedis(redisUrl, options);
  if (address.kind === 'cluster') {
    const { lazyConnect, ...perNode } = options;
    return new Cluster(address.nodes, {
      lazyConnect,
      enableReadyCheck: options.enableReadyCheck,
      redisOptions: { ...perNode, username: address.username, password: address.password },
      clusterRetryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
    });
  }
  return newSentinelClient(address, options);
}

function newSentinelClient(address: Extract<RedisAddress, { kind: 'sentinel' }>, options: RedisClientOptions): Redis {
  return new IORedis({
    ...options,
    sentinels: address.sentinels,
    name: address.name,
    db: address.db,
    username: address.username,
    password: address.password,
    sentinelPassword: address.sentinelPassword,
    failoverDetector: true,
    // Every Sentinel refused or did not know the primary (mid-failover): ask them again shortly, for as long as it takes.
    sentinelRetryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
  });
}

/**
 * BullMQ needs `maxRetriesPerRequest: null` so blocking commands survive a Redis restart or failover instead of
 * failing. ioredis reconnects by itself; its errors (refused, wrong password) go to `warnings`, so a wrong REDIS_URL is seen.
 */
export function createRedisConnection(redisUrl: string, warnings: ThrottledWarnings = connectionWarnings()): RedisClient {
  const redis = newRedisClient(redisUrl, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
  redis.on('error', warnings.listener('redis'));
  return redis;
}
