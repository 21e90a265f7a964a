import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { appEnvSchemas, parseEnv } from '@sqlsweep/config';
// nx-ignore-next-line
import { testQueuePrefix, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';
import { createOrchestratorApp, type OrchestratorAppOptions } from '../app';

export interface TestApi {
  app: NestExpressApplication;
  /** http://127.0.0.1:<port>, the free port the app listens on. */
  url: string;
  queuePrefix: string;
}

/**
 * The orchestrator's HTTP app over a test's own database, listening on a free port of 127.0.0.1: this run's Redis,
 * a queue prefix of its own unless `env` names one, and the LLM simulator's URL on a closed port (no test reaches a
 * provider). `env` holds the rest of the orchestrator's environment (SQLSWEEP_API_TOKEN, SQLSWEEP_OPEN_READS, ...).
 * It serves no dashboard unless `opts.dashboardDir` names one, whether or not apps/dashboard is built.
 */
export async function startTestApi(database: TestDatabase, env: Record<string, string> = {}, opts: OrchestratorAppOptions = {}): Promise<TestApi> {
  const queuePrefix = env.SQLSWEEP_QUEUE_PREFIX ?? testQueuePrefix();
  const appEnv = parseEnv(appEnvSchemas.orchestrator, { DATABASE_URL: database.url, REDIS_URL: testRedisUrl(), SQLSWEEP_QUEUE_PREFIX: queuePrefix, PORT: '0', ...env });
  const dashboardDir = opts.dashboardDir ?? join(tmpdir(), 'no-dashboard-here');
  const app = await createOrchestratorApp(appEnv, { SQLSWEEP_LLM_SIM_URL: 'http://127.0.0.1:9' }, { ...opts, dashboardDir });
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1'), queuePrefix };
}
