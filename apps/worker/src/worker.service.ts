import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { datasetStoreSettings, ThrottledWarnings, type AppEnv } from '@sqlsweep/config';
import type { LlmBatchJobPayload, StageJobPayload } from '@sqlsweep/contracts';
import { createDatasetFileStore, createDb, DatasetRepository, LlmCacheRepository, RunRepository, StageRepository, warnConnectionErrors, type DatasetFileStore, type Db } from '@sqlsweep/db';
import { ReplicaMaterializer } from '@sqlsweep/datasets';
import { Advancer, Reconciler } from '@sqlsweep/orchestration';
import { Pool } from 'pg';
import { DEFAULT_CLAIM_TTL_MS, LlmClient, llmBudgetPrefix, loadModelCatalog, ModelCallers, RedisRateBudget } from '@sqlsweep/llm';
import { createRedisConnection, QueueClient, WorkerHost, type Job, type JobHandlers } from '@sqlsweep/queue';
import { SandboxPool } from '@sqlsweep/sql-sandbox';
import { stageFaultsFromEnv, stageFaultsWarning } from '@sqlsweep/pipelines';
import pino from 'pino';
import { StageRunner } from './stage-runner';
import { buildSchemaIndexJob } from './index-builder';
import { LlmBatchRunner } from './llm-batch';
import { AdaptiveLlmConcurrency, AUTO_LLM_HEADROOM, AUTO_MIN_LLM_CONCURRENCY } from './llm-concurrency';
import { WorkerRetrieval } from './stage-services';
import { RedisSharedExecutions } from './shared-executions';

export const WORKER_ENV = Symbol('WORKER_ENV');

/**
 * The stages a job's final failure settles: a stage job's own, or every stage of an LLM batch (those already stored
 * are left as they are). An `index.build` job belongs to no run: `sqlsweep index build` reads its failed state.
 */
function stagesEndedBy(job: Job): StageJobPayload[] {
  if (job.name === undefined) return []; // lost in part by Redis: nothing to record
  if (job.name.startsWith('stage.')) return [job.data as StageJobPayload];
  if (job.name === 'llm.batch') return (job.data as LlmBatchJobPayload).stages;
  return [];
}
export const PROVIDER_ENV = Symbol('PROVIDER_ENV');

/** Serves the stage queues of the roles named in SQLSWEEP_ROLES. */
@Injectable()
export class WorkerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log;
  private db?: Db;
  private queue?: QueueClient;
  private sandbox?: SandboxPool;
  private host?: WorkerHost;
  private reconciler?: Reconciler;
  private redis?: ReturnType<typeof createRedisConnection>;
  private budgetRedis?: ReturnType<typeof createRedisConnection>;
  private cachePool?: Pool;
  private files?: DatasetFileStore;
  private llm?: LlmClient;
  private retrieval?: WorkerRetrieval;
  private llmConcurrency?: AdaptiveLlmConcurrency;

  constructor(
    @Inject(WORKER_ENV) private readonly env: AppEnv<'worker'>,
    @Inject(PROVIDER_ENV) private readonly providerEnv: Record<string, string | undefined>,
  ) {
    this.log = pino({ level: env.LOG_LEVEL, base: { app: 'worker', pid: process.pid } });
  }

  onApplicationBootstrap(): void {
    const env = this.env;
    // Redis and Postgres errors (an outage, a wrong URL or password) as warnings, one per kind per 30 s.
    const warnings = new ThrottledWarnings((fields, msg) => this.log.warn(fields, msg));
    this.db = createDb(env.DATABASE_URL, { max: 4, warnings });
    // One connection for the workers' commands and the adds of the stages they make ready, so that the adds run in
    // Redis before the completion of the job that made them (QueueClient.sendMany).
    this.redis = createRedisConnection(env.REDIS_URL, warnings);
    this.queue = new QueueClient(this.redis, env.SQLSWEEP_QUEUE_PREFIX);
    this.budgetRedis = createRedisConnection(env.REDIS_URL, warnings);
    this.sandbox = new SandboxPool({
      size: env.SQLSWEEP_SANDBOX_SIZE, deadlineMs: env.SQLSWEEP_SQL_DEADLINE_MS, timingReuseMs: env.SQLSWEEP_TIMING_REUSE_MS,
      shared: new RedisSharedExecutions(this.budgetRedis, env.SQLSWEEP_QUEUE_PREFIX),
    });
    // The response cache costs every LLM call one query on a hit and two on a miss (look-up-and-claim, store-and-release):
    // at a top-tier limit's 50 calls/s, with five queries a call then, 2 connections queued the LLM jobs behind each
    // other once Postgres slowed down.
    this.cachePool = new Pool({ connectionString: env.DATABASE_URL, max: env.SQLSWEEP_ROLES.includes('llm') ? 8 : 2 });
    warnConnectionErrors(this.cachePool, warnings);
    const auto = env.SQLSWEEP_LLM_CONCURRENCY === 'auto' && env.SQLSWEEP_ROLES.includes('llm');
    const llmConcurrency = auto ? (this.llmConcurrency = new AdaptiveLlmConcurrency({
      callers: new ModelCallers(this.budgetRedis, llmBudgetPrefix(env.SQLSWEEP_QUEUE_PREFIX)),
      bounds: { min: Math.min(AUTO_MIN_LLM_CONCURRENCY, env.SQLSWEEP_LLM_CONCURRENCY_MAX), max: env.SQLSWEEP_LLM_CONCURRENCY_MAX, headroom: AUTO_LLM_HEADROOM },
      apply: (n) => this.host?.setConcurrency('stage-llm', n),
      log: (obj, msg) => this.log.info(obj, msg),
    })) : undefined;
    const llm = (this.llm = new LlmClient({
      catalog: loadModelCatalog(env.SQLSWEEP_MODELS_FILE),
      env: this.providerEnv,
      cache: new LlmCacheRepository(this.cachePool),
      budget: new RedisRateBudget({ redis: this.budgetRedis, keyPrefix: llmBudgetPrefix(env.SQLSWEEP_QUEUE_PREFIX) }),
      ...(llmConcurrency ? { onCall: llmConcurrency.observeCall } : {}),
      // A dead worker's claims lapse no later than its job locks: its jobs resume as soon as BullMQ hands them on.
      claims: { ttlMs: env.SQLSWEEP_LLM_CLAIM_TTL_MS ?? Math.min(DEFAULT_CLAIM_TTL_MS, env.SQLSWEEP_JOB_LOCK_MS) },
      logger: (obj) => ('severity' in obj ? this.log.warn(obj, 'llm') : this.log.debug(obj, 'llm call')),
    }));
    this.retrieval = new WorkerRetrieval({ dataDir: env.SQLSWEEP_DATA_DIR, encoderDir: env.SQLSWEEP_ENCODER_DIR, logger: this.log });
    const runs = new RunRepository(this.db);
    const files = createDatasetFileStore(this.db, datasetStoreSettings(env, 'worker environment'));
    this.files = files;
    const advancer = new Advancer(runs, this.queue);
    const faults = stageFaultsFromEnv(this.providerEnv, 'worker environment');
    const faultWarning = stageFaultsWarning(faults, 'worker');
    if (faultWarning) this.log.warn({ faults }, faultWarning);
    const runner = new StageRunner({
      retrieval: this.retrieval,
      datasets: new DatasetRepository(this.db, files), stages: new StageRepository(this.db), queue: this.queue, llm,
      advancer,
      sandbox: this.sandbox, sqlDeadlineMs: env.SQLSWEEP_SQL_DEADLINE_MS,
      replicas: new ReplicaMaterializer({ dataDir: env.SQLSWEEP_DATA_DIR, store: files }),
      log: (obj, msg) => this.log.info(obj, msg),
      resultCacheBytes: env.SQLSWEEP_RESULT_CACHE_MB * 1024 * 1024,
      ...(faultWarning ? { faults } : {}),
    });
    const llmSlots = env.SQLSWEEP_LLM_CONCURRENCY === 'auto' ? (llmConcurrency?.concurrency ?? AUTO_MIN_LLM_CONCURRENCY) : env.SQLSWEEP_LLM_CONCURRENCY;
    const concurrency = { llm: llmSlots, sql: env.SQLSWEEP_SQL_CONCURRENCY, retrieval: env.SQLSWEEP_RETRIEVAL_CONCURRENCY };
    const queues = Object.fromEntries(env.SQLSWEEP_ROLES.map((role) => [`stage-${role}`, concurrency[role]]));
    this.host = new WorkerHost({
      redisUrl: env.REDIS_URL, prefix: env.SQLSWEEP_QUEUE_PREFIX, queues, maxActive: env.SQLSWEEP_MAX_ACTIVE_JOBS, lockDurationMs: env.SQLSWEEP_JOB_LOCK_MS, warnings,
      connection: this.redis,
      onFailed: (job, error, final) => {
        this.log.warn({ jobId: job.id, job: job.name, stage: job.data?.stage, runId: job.data?.runId, final, err: error.message }, final ? 'job failed for good' : 'job attempt failed');
        if (!final) return;
        for (const p of stagesEndedBy(job)) void runner.fail(p, error).catch((e: Error) => this.log.error({ stageKey: p.stageKey, err: e.message }, 'recording a failure failed: the reconciler will run the stage again'));
      },
    });
    const stage = (p: Parameters<StageRunner['run']>[0], job: Parameters<StageRunner['run']>[1], token?: string) => runner.run(p, job, token);
    const datasets = new DatasetRepository(this.db, files);
    const retrieval = this.retrieval;
    const batches = new LlmBatchRunner({ runner, llm, stages: new StageRepository(this.db), pollMs: env.SQLSWEEP_BATCH_POLL_MS });
    const handlers: JobHandlers<'stage.llm' | 'stage.sql' | 'stage.retrieval' | 'index.build' | 'llm.batch'> = {
      'stage.llm': llmConcurrency ? llmConcurrency.timed(stage) : stage, 'stage.sql': stage, 'stage.retrieval': stage,
      'index.build': (p) => buildSchemaIndexJob(p, { datasets, retrieval }),
      'llm.batch': (p, job, token) => batches.run(p, job, token),
    };
    this.host.start(handlers);
    llmConcurrency?.start();
    this.reconciler = new Reconciler({ runs, advancer }, {
      redisUrl: env.REDIS_URL, queuePrefix: env.SQLSWEEP_QUEUE_PREFIX, intervalMs: env.SQLSWEEP_RECONCILE_MS, log: (obj, msg) => this.log.info(obj, msg),
    });
    this.reconciler.start();
    this.log.info({ roles: env.SQLSWEEP_ROLES, queues, prefix: env.SQLSWEEP_QUEUE_PREFIX }, 'worker started');
  }

  async onApplicationShutdown(signal?: string): Promise<void> {
    this.log.info({ signal }, 'worker stopping: finishing active jobs');
    await this.reconciler?.stop();
    await this.llmConcurrency?.stop();
    await this.host?.close();
    await this.sandbox?.close();
    await this.retrieval?.close();
    await this.queue?.close();
    this.redis?.disconnect();
    this.budgetRedis?.disconnect();
    this.files?.close?.();
    await this.llm?.close();
    await this.cachePool?.end();
    await this.db?.destroy();
  }
}
