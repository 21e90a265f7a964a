import { resolve } from 'node:path';
import { newTestRun } from '@sqlsweep/testing';
import { ensureServices } from '@sqlsweep/infra';
import unitSetup from './unit-setup';

/**
 * Jest global set-up of the int and e2e projects: what the unit project's set-up makes (the minibench), then Redis
 * and Postgres reachable before any suite runs (started when missing). Their URLs and the run's tag for queue
 * prefixes (removed again by the global teardown) go into process.env, which the test workers inherit.
 */
export default async function globalSetup(): Promise<void> {
  await unitSetup();
  const endpoints = await ensureServices({ projectDir: resolve(__dirname, '..'), env: process.env, log: () => undefined });
  process.env.REDIS_URL = endpoints.redisUrl;
  process.env.DATABASE_URL = endpoints.databaseUrl;
  process.env.SQLSWEEP_TEST_RUN = newTestRun();
}
