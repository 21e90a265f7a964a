import { connectionWarnings, type ThrottledWarnings } from '@sqlsweep/config';
import IORedis, { type Redis } from 'ioredis';

/**
 * BullMQ needs `maxRetriesPerRequest: null` so blocking commands survive a Redis restart instead of failing. ioredis
 * reconnects by itself; its errors (refused, wrong password) go to `warnings`, so a wrong REDIS_URL is seen.
 */
export function createRedisConnection(redisUrl: string, warnings: ThrottledWarnings = connectionWarnings()): Redis {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
  redis.on('error', warnings.listener('redis'));
  return redis;
}
