import { z } from 'zod';
import { ConfigError } from './load-env';
import { redisUrlProblem } from './redis-address';

const url = (protocols: string[]) =>
  z.string().refine((v) => protocols.some((p) => v.startsWith(`${p}://`)), {
    message: `must be a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
  });
const intFromString = (min: number) => z.coerce.number().int().min(min);
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

/** Settings every process of the system reads. */
export const commonEnvSchema = z.object({
  /**
   * One Redis server (`redis://`, `rediss://`), the primary named by Sentinels (`redis+sentinel://h:p,h:p/<master>`),
   * or a Redis Cluster (`redis+cluster://h:p,h:p`); see parseRedisUrl.
   */
  REDIS_URL: z.string().superRefine((v, ctx) => {
    const problem = redisUrlProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }).default('redis://127.0.0.1:6379'),
  DATABASE_URL: url(['postgres', 'postgresql']).default('postgres://postgres@127.0.0.1:5432/sqlsweep'),
  SQLSWEEP_QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').default('sqlsweep'),
  SQLSWEEP_DATA_DIR: z.string().min(1).default('.sqlsweep'),
  SQLSWEEP_MODELS_FILE: z.string().min(1).default('configs/models.yaml'),
  /** The only folder file knobs (R3's `ragCorpus`) may name files in, relative to it; planner and workers check it. */
  SQLSWEEP_CORPUS_DIR: z.string().min(1).default('data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * How often the reconciler (in the orchestrator and in every worker; one at a time holds its Redis lease) re-checks
   * the running runs: a run that has not moved since its previous pass is re-planned from Postgres.
   */
  SQLSWEEP_RECONCILE_MS: intFromString(100).default(10_000),
  /** Admission budget: the planner refuses a sweep of more variants, counted from the grid before expanding it. */
  SQLSWEEP_MAX_VARIANTS: intFromString(1).default(10_000),
  /** Admission budget: the planner refuses a sweep of more stage jobs (per variant, item and stage, before sharing). */
  SQLSWEEP_MAX_STAGE_JOBS: intFromString(1).default(5_000_000),
  /** Where dataset files' bytes are stored: Postgres (default) or an S3-compatible object store (SQLSWEEP_S3_*). */
  SQLSWEEP_DATASET_STORE: z.enum(['postgres', 's3']).default('postgres'),
  /** The S3-compatible server (MinIO, Ceph, ...); default: AWS S3 for the region. Requests are path-style. */
  SQLSWEEP_S3_ENDPOINT: url(['http', 'https']).optional(),
  SQLSWEEP_S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens').optional(),
  /** Objects are `<prefix>/<sha256>`. */
  SQLSWEEP_S3_PREFIX: z.string().regex(/^[A-Za-z0-9!_.*'()/-]*$/, 'letters, digits and !_.*\'()/- only').default('sqlsweep/datasets'),
  SQLSWEEP_S3_REGION: z.string().min(1).optional(),
  AWS_REGION: z.string().min(1).optional(),
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
});

/** Where dataset files are stored (see createDatasetFileStore in @sqlsweep/db). */
export type DatasetStoreSettings =
  | { kind: 'postgres' }
  | { kind: 's3'; endpoint?: string; bucket: string; prefix: string; region: string; accessKeyId?: string; secretAccessKey?: string };

/**
 * The dataset store a process's environment names; throws a ConfigError naming the variable when SQLSWEEP_DATASET_STORE=s3
 * lacks what it needs (the bucket; both AWS keys or neither, for the SDK's default credential chain).
 */
export function datasetStoreSettings(env: CommonEnv, source = 'environment'): DatasetStoreSettings {
  if (env.SQLSWEEP_DATASET_STORE === 'postgres') return { kind: 'postgres' };
  const problems: string[] = [];
  if (!env.SQLSWEEP_S3_BUCKET) problems.push('SQLSWEEP_S3_BUCKET: required when SQLSWEEP_DATASET_STORE=s3 (the bucket dataset files go to)');
  if ((env.AWS_ACCESS_KEY_ID === undefined) !== (env.AWS_SECRET_ACCESS_KEY === undefined)) {
    const missing = env.AWS_ACCESS_KEY_ID === undefined ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY';
    problems.push(`${missing}: set it too, or neither AWS key (the SDK's default credential chain is used then)`);
  }
  if (problems.length > 0) throw new ConfigError(source, problems);
  return {
    kind: 's3', endpoint: env.SQLSWEEP_S3_ENDPOINT, bucket: env.SQLSWEEP_S3_BUCKET!, prefix: env.SQLSWEEP_S3_PREFIX.replace(/^\/+|\/+$/g, ''),
    region: env.SQLSWEEP_S3_REGION ?? env.AWS_REGION ?? 'us-east-1',
    accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
  };
}

export const workerRoles = ['llm', 'sql', 'retrieval'] as const;
export type WorkerRole = (typeof workerRoles)[number];

export const workerEnvSchema = commonEnvSchema.extend({
  SQLSWEEP_ROLES: z
    .string()
    .default(workerRoles.join(','))
    .transform((v) => v.split(',').map((r) => r.trim()).filter(Boolean))
    .pipe(z.array(z.enum(workerRoles)).min(1, 'name at least one role')),
  /**
   * LLM jobs one worker process holds at once. `auto` (the default) sizes it by Little's law to keep the models'
   * limits busy: the calls per second the shared budget admits (the binding limit, this process's share of it) x the
   * time a job holds its slot per call, x 1.5, from 16 up to SQLSWEEP_LLM_CONCURRENCY_MAX. A number fixes it.
   */
  SQLSWEEP_LLM_CONCURRENCY: z.union([z.literal('auto'), intFromString(1)]).default('auto'),
  SQLSWEEP_LLM_CONCURRENCY_MAX: intFromString(1).default(512),
  SQLSWEEP_SQL_CONCURRENCY: intFromString(1).default(8),
  SQLSWEEP_RETRIEVAL_CONCURRENCY: intFromString(1).default(1),
  /**
   * The most jobs one worker process runs at once over all its roles; by default, the sum of the roles' concurrency.
   * Jobs past it wait in this process, locked to it: lower the roles' concurrency too where other processes could run them.
   */
  SQLSWEEP_MAX_ACTIVE_JOBS: intFromString(1).optional(),
  SQLSWEEP_SANDBOX_SIZE: intFromString(1).optional(),
  /**
   * How many MiB of the stage outputs it has read a worker process keeps, as stored (least recently read dropped
   * first): the stages that read a whole training set read the same outputs for every item. 0 caches nothing.
   */
  SQLSWEEP_RESULT_CACHE_MB: intFromString(0).default(64),
  SQLSWEEP_SQL_DEADLINE_MS: intFromString(100).default(30_000),
  /**
   * How long a worker reuses a VES timing (the same SQL timed on the same replica with the same repeats) instead of
   * timing it again: a sweep's evaluate stages time the same gold query once per variant that got the item right.
   * A prediction identical to the gold then gets the gold's timing (ratio exactly 1). 0 times every pair afresh, as
   * BIRD's evaluation_ves.py does.
   */
  SQLSWEEP_TIMING_REUSE_MS: intFromString(0).default(300_000),
  /** How long a job stays locked to a worker without renewal; a killed worker's jobs return after about this. */
  SQLSWEEP_JOB_LOCK_MS: intFromString(1_000).default(30_000),
  /**
   * How long a claim on an LLM call in flight outlives its owner: renewed every fifth of it while the call runs, it
   * lapses this long after a worker dies. Default: 10 s, or the job lock where that is shorter.
   */
  SQLSWEEP_LLM_CLAIM_TTL_MS: intFromString(500).optional(),
  /** How often a batch-mode job asks the provider whether its batch has ended. */
  SQLSWEEP_BATCH_POLL_MS: intFromString(100).default(30_000),
  SQLSWEEP_LLM_SIM_URL: url(['http', 'https']).optional(),
  /** A late-interaction encoder directory (config.json, model.onnx, tokenizer.json); default: the bundled one. */
  SQLSWEEP_ENCODER_DIR: z.string().min(1).optional(),
  /** Qdrant for the retrieval indexes; without it the embedded index is used. */
  QDRANT_URL: url(['http', 'https']).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
});

export const orchestratorEnvSchema = commonEnvSchema.extend({
  PORT: intFromString(0).default(3000),
  SQLSWEEP_API_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  /** A token that may read (GET) but never change state: the dashboard shows its actions disabled, saying why. */
  SQLSWEEP_READ_TOKEN: z.string().min(16, 'use at least 16 characters').optional(),
  /** Lets every read (GET: traces, items, gold SQL, exports, /queues) through without the token; health and metrics always are. */
  SQLSWEEP_OPEN_READS: flag.default(false),
  /** Named nightly schedules (cron, timezone, sweep); reconciled into BullMQ job schedulers at start-up. */
  SQLSWEEP_SCHEDULES_FILE: z.string().min(1).default('configs/schedules.yaml'),
  /** Where regression alerts are POSTed (JSON); overrides `alerts.webhookUrl` of the schedules file. */
  SQLSWEEP_ALERT_WEBHOOK_URL: url(['http', 'https']).optional(),
});

export const llmSimEnvSchema = z.object({
  PORT: intFromString(0).default(8787),
  LLM_SIM_HOST: z.string().default('127.0.0.1'),
  LLM_SIM_SEED: intFromString(0).default(7),
  LLM_SIM_DATASETS: z.string().default('data/minibench/dist'),
  LLM_SIM_CONFIG: z.string().optional(),
});

export const appEnvSchemas = {
  orchestrator: orchestratorEnvSchema,
  worker: workerEnvSchema,
  'llm-sim': llmSimEnvSchema,
} as const;
export type AppName = keyof typeof appEnvSchemas;
export type AppEnv<A extends AppName> = z.output<(typeof appEnvSchemas)[A]>;
export type CommonEnv = z.output<typeof commonEnvSchema>;
