import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AppEnv } from '@sqlsweep/config';
import { OrchestratorCore } from '@sqlsweep/orchestration';
import { defaultDashboardDir, serveDashboard } from './dashboard-static';
import { ErrorsFilter } from './errors.filter';
import { OrchestratorModule } from './orchestrator.module';
import { mountQueueBoard } from './queue-board';

export interface OrchestratorAppOptions {
  /** The dashboard build to serve at `/`; default apps/dashboard/dist. */
  dashboardDir?: string;
}

/** Migrates, wires the core, starts the advancer and the HTTP API (under /api), /metrics, /queues and the dashboard. */
export async function createOrchestratorApp(env: AppEnv<'orchestrator'>, providerEnv: Record<string, string | undefined>, opts: OrchestratorAppOptions = {}): Promise<NestExpressApplication> {
  await OrchestratorCore.prepareDatabase(env.DATABASE_URL);
  const core = new OrchestratorCore({
    databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, queuePrefix: env.SQLSWEEP_QUEUE_PREFIX,
    modelsFile: env.SQLSWEEP_MODELS_FILE, providerEnv,
    admission: { maxVariants: env.SQLSWEEP_MAX_VARIANTS, maxStageJobs: env.SQLSWEEP_MAX_STAGE_JOBS },
  });
  core.startAdvancing();
  for (const runId of await core.runs.runningRuns()) await core.advancer.reconcile(runId);
  const reconcilerLog = new Logger('reconciler');
  core.startReconciling(env.SQLSWEEP_RECONCILE_MS, (obj, msg) => reconcilerLog.warn(`${msg} ${JSON.stringify(obj)}`));
  const app = await NestFactory.create<NestExpressApplication>(OrchestratorModule.forCore(env, core), { logger: ['error', 'warn'] });
  app.setGlobalPrefix('api', { exclude: ['metrics'] });
  app.useGlobalFilters(new ErrorsFilter());
  mountQueueBoard(app, env, core.queue);
  serveDashboard(app, opts.dashboardDir ?? defaultDashboardDir);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  return app;
}
