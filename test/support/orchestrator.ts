import type { INestApplication } from '@nestjs/common';
import { appEnvSchemas, parseEnv } from '@sqlsweep/config';
// nx-ignore-next-line
import { createOrchestratorApp } from '@sqlsweep/orchestrator';
import type { E2eStack } from './e2e-stack';

export interface Orchestrator { app: INestApplication; url: string }

/**
 * The orchestrator app in this process on a free loopback port, over the stack's database, queues and simulator;
 * `env` adds to (or overrides) its environment; `port` picks the port (a restart on the port an open page uses).
 */
export async function startOrchestrator(stack: E2eStack, apiToken: string, env: Record<string, string> = {}, port = 0): Promise<Orchestrator> {
  const app = await createOrchestratorApp(parseEnv(appEnvSchemas.orchestrator, {
    DATABASE_URL: stack.databaseUrl, REDIS_URL: process.env.REDIS_URL, SQLSWEEP_QUEUE_PREFIX: stack.prefix, PORT: '0', SQLSWEEP_API_TOKEN: apiToken, ...env,
  }), { SQLSWEEP_LLM_SIM_URL: stack.sim.url });
  try {
    await app.listen(port, '127.0.0.1');
  } catch (e) {
    await app.close();
    throw e;
  }
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}
