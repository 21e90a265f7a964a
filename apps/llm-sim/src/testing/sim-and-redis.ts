import { Redis } from 'ioredis';
import { testRedisUrl } from '@sqlsweep/testing';
import { startLlmSimulator, type LlmSimulator, type LlmSimulatorHandle } from '../server';
import type { SimConfig } from '../sim-config';
import { BIRD_SAMPLE } from './sim-fixtures';

export interface SimAndRedis {
  sim: LlmSimulatorHandle & { simulator: LlmSimulator };
  redis: Redis;
}

/** The simulator answering from the BIRD sample under `config`, and a Redis connection for a rate budget. */
export async function startSimAndRedis(config: SimConfig): Promise<SimAndRedis> {
  const sim = await startLlmSimulator({ datasetDirs: [BIRD_SAMPLE], config });
  return { sim, redis: new Redis(testRedisUrl(), { maxRetriesPerRequest: null }) };
}

/** Removes the test's keys (under `prefix`), then closes both. */
export async function stopSimAndRedis({ sim, redis }: SimAndRedis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await sim.close();
}
