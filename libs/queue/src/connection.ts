import IORedis, { type Redis } from 'ioredis';

/** BullMQ needs `maxRetriesPerRequest: null` so blocking commands survive a Redis restart instead of failing. */
export function createRedisConnection(redisUrl: string): Redis {
  return new IORedis(redisUrl, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}
