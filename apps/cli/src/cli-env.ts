import { commonEnvSchema, datasetStoreSettings, parseEnv, type CommonEnv } from '@sqlsweep/config';
import type { OrchestratorCore } from '@sqlsweep/orchestration';
import type { StageFaults } from '@sqlsweep/pipelines';

export function cliEnv(): CommonEnv {
  return parseEnv(commonEnvSchema, process.env, 'sqlsweep environment');
}

/**
 * The test fault switches set in this environment (an unknown value is an error), after the start-up warning when
 * one is on. Every switch is a SQLSWEEP_TEST_FAULT_* variable: without one, the pipelines (which hold the switches and
 * are slow to load) are not loaded.
 */
export async function stageFaults(): Promise<StageFaults> {
  if (!Object.keys(process.env).some((name) => name.startsWith('SQLSWEEP_TEST_FAULT_'))) return {};
  const { stageFaultsFromEnv, stageFaultsWarning } = await import('@sqlsweep/pipelines');
  const faults = stageFaultsFromEnv(process.env, 'sqlsweep environment');
  const faultWarning = stageFaultsWarning(faults, 'sqlsweep process');
  if (faultWarning) process.stderr.write(`WARNING: ${faultWarning}\n`);
  return faults;
}

/** Migrates the database, then wires the orchestrator's parts in this process. */
export async function openCore(env: CommonEnv = cliEnv()): Promise<OrchestratorCore> {
  // Loaded here, not at the top: commands that only read (`sqlsweep status`) start without the orchestrator's libraries.
  const { OrchestratorCore } = await import('@sqlsweep/orchestration');
  await OrchestratorCore.prepareDatabase(env.DATABASE_URL);
  const faults = await stageFaults();
  return new OrchestratorCore({
    databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL, queuePrefix: env.SQLSWEEP_QUEUE_PREFIX,
    modelsFile: env.SQLSWEEP_MODELS_FILE, providerEnv: process.env,
    admission: { maxVariants: env.SQLSWEEP_MAX_VARIANTS, maxStageJobs: env.SQLSWEEP_MAX_STAGE_JOBS },
    datasetStore: datasetStoreSettings(env, 'sqlsweep environment'),
    retrieval: { dataDir: env.SQLSWEEP_DATA_DIR, encoderDir: process.env.SQLSWEEP_ENCODER_DIR, progress: true }, faults,
  });
}
