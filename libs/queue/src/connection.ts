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
  return reconnectUnlessClosed(new IORedis({
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
  }));
}

/**
 * ioredis ends a Sentinel client for good when its failover detector closes the connection while the client is still
 * asking the Sentinels for the primary: SentinelConnector.connect then throws "Connection is closed." and the client's
 * status becomes `end`, so every later command fails at once (seen in bench/hosts: one worker failed all its LLM jobs
 * for a minute after a failover, until their attempts ran out). An end that no caller asked for is not final here: the
 * client connects again.
 */
function reconnectUnlessClosed(client: Redis): Redis {
  let closing = false;
  const disconnect = client.disconnect.bind(client);
  const quit = client.quit.bind(client);
  client.disconnect = (reconnect = false) => {
    if (!reconnect) closing = true;
    disconnect(reconnect);
  };
  client.quit = ((...args: Parameters<Redis['quit']>) => {
    closing = true;
    return quit(...args);
  }) as Redis['quit'];
  client.on('end', () => {
    setTimeout(() => {
      if (!closing && client.status === 'end') client.connect().catch(() => undefined);
    }, 200).unref();
  });
  // BullMQ makes its blocking connections with duplicate(): they follow failovers the same way.
  const duplicate = client.duplicate.bind(client);
  client.duplicate = ((override?: Partial<RedisOptions>) => reconnectUnlessClosed(duplicate(override))) as Redis['duplicate'];
  return client;
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
