import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { datasetStoreSettings, type AppEnv } from '@sqlsweep/config';
import { OrchestratorCore } from '@sqlsweep/orchestration';
import { stageFaultsFromEnv, stageFaultsWarning } from '@sqlsweep/pipelines';
import { defaultDashboardDir, serveDashboard } from './dashboard-static';
import { ErrorsFilter } from './errors.filter';
import { OrchestratorModule } from './orchestrator.module';
import { NulBytePipe } from './nul-byte.pipe';
import { mountQueueBoard } from './queue-board';

/**
 * The largest JSON body the API reads (413 above it): room for a sweep config at the planner's own 1 MB limit, which
 * answers with a message naming the file.
 */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface OrchestratorAppOptions {
  /** The dashboard build to serve at `/`; default apps/dashboard/dist. */
  dashboardDir?: string;
}

/** Migrates, wires the core, starts the advancer and the HTTP API (under /api), /metrics, /queues and the dashboard. */
export async function createOrchestratorApp(env: AppEnv<'orchestrator'>, providerEnv: Record<string, string | undefined>, opts: OrchestratorAppOptions = {}): Promise<NestExpressApplication> {
  await OrchestratorCore.prepareDatabase(env.DATABASE_URL);
  const faults = stageFaultsFromEnv(providerEnv, 'orchestrator environment');
  const faultWarning = stageFaultsWarning(faults, 'orchestrator');
  if (faultWarning) new Logger('test-faults').warn(faultWarning);
  const core = new OrchestratorCore({
    databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, queuePrefix: env.SQLSWEEP_QUEUE_PREFIX,
    modelsFile: env.SQLSWEEP_MODELS_FILE, providerEnv, corpusDir: env.SQLSWEEP_CORPUS_DIR,
    admission: { maxVariants: env.SQLSWEEP_MAX_VARIANTS, maxStageJobs: env.SQLSWEEP_MAX_STAGE_JOBS },
    datasetStore: datasetStoreSettings(env, 'orchestrator environment'),
    retrieval: { dataDir: env.SQLSWEEP_DATA_DIR, encoderDir: providerEnv.SQLSWEEP_ENCODER_DIR }, faults,
  });
  core.startAdvancing();
  for (const runId of await core.runs.runningRuns()) await core.advancer.reconcile(runId);
  const reconcilerLog = new Logger('reconciler');
  core.startReconciling(env.SQLSWEEP_RECONCILE_MS, (obj, msg) => reconcilerLog.log(`${msg} ${JSON.stringify(obj)}`));
  // forceCloseConnections: a dashboard polling over keep-alive connections would otherwise hold a shutdown open for minutes.
  const app = await NestFactory.create<NestExpressApplication>(OrchestratorModule.forCore(env, core), { logger: ['error', 'warn'], forceCloseConnections: true });
  app.setGlobalPrefix('api', { exclude: ['metrics'] });
  app.useBodyParser('json', { limit: MAX_BODY_BYTES });
  app.useGlobalFilters(new ErrorsFilter());
  app.useGlobalPipes(new NulBytePipe());
  mountQueueBoard(app, env, core.queue);
  serveDashboard(app, opts.dashboardDir ?? defaultDashboardDir);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  return app;
}
