import { commonEnvSchema, datasetStoreSettings, parseEnv, type CommonEnv } from '@sqlsweep/config';
import { OrchestratorCore } from '@sqlsweep/orchestration';
import { stageFaultsFromEnv, stageFaultsWarning } from '@sqlsweep/pipelines';

export function cliEnv(): CommonEnv {
  return parseEnv(commonEnvSchema, process.env, 'sqlsweep environment');
}

/** Migrates the database, then wires the orchestrator's parts in this process. */
export async function openCore(env: CommonEnv = cliEnv()): Promise<OrchestratorCore> {
  await OrchestratorCore.prepareDatabase(env.DATABASE_URL);
  const faults = stageFaultsFromEnv(process.env, 'sqlsweep environment');
  const faultWarning = stageFaultsWarning(faults, 'sqlsweep process');
  if (faultWarning) process.stderr.write(`WARNING: ${faultWarning}\n`);
  return new OrchestratorCore({
    databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, queuePrefix: env.SQLSWEEP_QUEUE_PREFIX,
    modelsFile: env.SQLSWEEP_MODELS_FILE, providerEnv: process.env,
    admission: { maxVariants: env.SQLSWEEP_MAX_VARIANTS, maxStageJobs: env.SQLSWEEP_MAX_STAGE_JOBS },
    datasetStore: datasetStoreSettings(env, 'sqlsweep environment'),
    retrieval: { dataDir: env.SQLSWEEP_DATA_DIR, encoderDir: process.env.SQLSWEEP_ENCODER_DIR, progress: true }, faults,
  });
}
