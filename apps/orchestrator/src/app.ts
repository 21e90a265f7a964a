import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import { OrchestratorCore } from '@sqlsweep/orchestration';
import { ErrorsFilter } from './errors.filter';
import { OrchestratorModule } from './orchestrator.module';

/** Migrates, wires the core, starts the advancer and the HTTP API. */
export async function createOrchestratorApp(env: AppEnv<'orchestrator'>, providerEnv: Record<string, string | undefined>): Promise<INestApplication> {
  await OrchestratorCore.prepareDatabase(env.DATABASE_URL);
  const core = new OrchestratorCore({
    databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, queuePrefix: env.SQLSWEEP_QUEUE_PREFIX,
    modelsFile: env.SQLSWEEP_MODELS_FILE, providerEnv,
  });
  core.startAdvancing();
  for (const runId of await core.runs.runningRuns()) await core.advancer.reconcile(runId);
  const app = await NestFactory.create(OrchestratorModule.forCore(env, core), { logger: ['error', 'warn'] });
  app.useGlobalFilters(new ErrorsFilter());
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  return app;
}
