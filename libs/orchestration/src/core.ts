import { join } from 'node:path';
import { createDatasetFileStore, createDb, DatasetRepository, type DatasetStoreSettings, ensureDatabase, migrateToLatest, ReportRepository, RetrievalCurveRepository, RunRepository, StageRepository, type Db } from '@sqlsweep/db';
import { configuredEncoderDir, openEncoder, type Encoder } from '@sqlsweep/retrieval';
import { LlmClient, llmBudgetPrefix, loadModelCatalog, ModelPauses, type ModelCatalog, type ModelPause } from '@sqlsweep/llm';
import { createRedisConnection, QueueClient, WorkerHost, type RedisClient } from '@sqlsweep/queue';
import type { StageFaults } from '@sqlsweep/pipelines';
import type { AdmissionBudget } from './admission';
import { Advancer } from './advancer';
import { Planner } from './planner';
import { Reconciler } from './reconciler';

export interface CoreSettings {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  modelsFile: string;
  /** Where API keys and provider URLs named by the model catalog are looked up. */
  providerEnv: Record<string, string | undefined>;
  /** The largest sweep the planner admits; default `defaultAdmissionBudget`. */
  admission?: AdmissionBudget;
  /** The folder file knobs may name files in; default SQLSWEEP_CORPUS_DIR of this process, else `data`. */
  corpusDir?: string;
  /** Where dataset files' bytes are (SQLSWEEP_DATASET_STORE); default Postgres. */
  datasetStore?: DatasetStoreSettings;
  /**
   * The workers' retrieval set-up (SQLSWEEP_DATA_DIR, SQLSWEEP_ENCODER_DIR), which the planner resolves threshold
   * operating points with: the encoder directory (default the bundled one under `<dataDir>/models`) and
   * `<dataDir>/indexes`. Default dataDir `.sqlsweep`. `progress`: a curve being computed reports how far it has
   * got on stderr (the CLI's planning).
   */
  retrieval?: { dataDir: string; encoderDir?: string; progress?: boolean };
  /** Test-only fault switches the planner keys with (`StageFaults`, from SQLSWEEP_TEST_FAULT_*); never in production. */
  faults?: StageFaults;
}

/** One stderr line per tenth of a retrieval curve computed for an operating point. */
function curveProgress(done: number, total: number): void {
  if (done === total || done % Math.max(1, Math.ceil(total / 10)) === 0) process.stderr.write(`retrieval curve for an operating point: ${done}/${total} items scored\n`);
}

/** The orchestrator's parts, wired once; shared by the HTTP app and the CLI. */
export class OrchestratorCore {
  readonly db: Db;
  readonly datasets: DatasetRepository;
  readonly runs: RunRepository;
  /** What the reports (./reports) read: the CLI and the API both show runs through it. */
  readonly reports: ReportRepository;
  readonly stages: StageRepository;
  /** Table-retrieval curves that threshold operating points resolve against. */
  readonly retrievalCurves: RetrievalCurveRepository;
  readonly queue: QueueClient;
  readonly catalog: ModelCatalog;
  readonly planner: Planner;
  readonly advancer: Advancer;
  private host?: WorkerHost;
  private reconciler?: Reconciler;
  private pausesRedis?: RedisClient;
  private pauses?: ModelPauses;
  private encoder?: Promise<Encoder>;
  /** The workers' data dir (`retrieval.dataDir`, default `.sqlsweep`): their encoder's and indexes' home. */
  private readonly dataDir: string;

  /** Also what a plan thread (plan-thread.ts) opens its own core with. */
  constructor(readonly settings: CoreSettings) {
    // Read first: a bad catalog throws before any connection is opened (nothing is left to close).
    this.catalog = loadModelCatalog(settings.modelsFile);
    this.db = createDb(settings.databaseUrl);
    this.datasets = new DatasetRepository(this.db, createDatasetFileStore(this.db, settings.datasetStore));
    this.runs = new RunRepository(this.db);
    this.reports = new ReportRepository(this.db);
    this.stages = new StageRepository(this.db);
    this.queue = new QueueClient(settings.redisUrl, settings.queuePrefix);
    this.retrievalCurves = new RetrievalCurveRepository(this.db);
    this.dataDir = settings.retrieval?.dataDir ?? '.sqlsweep';
    const llm = new LlmClient({ catalog: this.catalog, env: settings.providerEnv });
    this.planner = new Planner({
      datasets: this.datasets, runs: this.runs, stages: this.stages, budget: settings.admission, corpusDir: settings.corpusDir, faults: settings.faults,
      operatingPoints: { curves: this.retrievalCurves, encoder: () => this.openEncoder(), indexRoot: join(this.dataDir, 'indexes'), onProgress: settings.retrieval?.progress ? curveProgress : undefined },
      assertModelsUsable: (models) => llm.assertUsable(models),
      estimateCall: (call) => llm.estimateCall({ ...call, templateVersion: call.templateVersion }, call.expectedOutputTokens ?? Math.ceil(call.maxTokens / 4)),
      isSimulated: (model) => {
        const m = this.catalog.models[model];
        return m !== undefined && this.catalog.providers[m.provider]?.simulated === true;
      },
    });
    this.advancer = new Advancer(this.runs, this.queue);
  }

  /** The encoder the workers run, opened on first need (the bundled one is built when missing), as WorkerRetrieval does. */
  private openEncoder(): Promise<Encoder> {
    this.encoder ??= (async () => openEncoder({ modelDir: configuredEncoderDir({ dataDir: this.dataDir, encoderDir: this.settings.retrieval?.encoderDir }) }))();
    return this.encoder;
  }

  /** Creates the database if missing and applies pending migrations. */
  static async prepareDatabase(databaseUrl: string): Promise<string[]> {
    await ensureDatabase(databaseUrl);
    return migrateToLatest(databaseUrl);
  }

  /** The workers' quota pauses (in their shared rate budget), on a Redis connection opened on first use. */
  private modelPauses(): ModelPauses {
    if (!this.pauses) {
      this.pausesRedis = createRedisConnection(this.settings.redisUrl);
      this.pauses = new ModelPauses(this.pausesRedis, llmBudgetPrefix(this.settings.queuePrefix));
    }
    return this.pauses;
  }

  /** Models paused because their provider said the quota or credit is spent, with why: all, or those a run uses. */
  async pausedModels(runId?: string): Promise<ModelPause[]> {
    const all = await this.modelPauses().list();
    if (!runId || all.length === 0) return all;
    const used = new Set((await this.runs.getVariants(runId)).map((v) => v.model));
    return all.filter((p) => used.has(p.model));
  }

  /** Lifts a model's quota pause: its waiting jobs go on at their next check. The reason it was paused for, or null if it was not. */
  async resumeModel(model: string): Promise<string | null> {
    return this.modelPauses().resume(model);
  }

  /** Consumes `run.advance` jobs in this process. */
  startAdvancing(concurrency = 4, lockDurationMs?: number): void {
    if (this.host) return;
    this.host = new WorkerHost({ redisUrl: this.settings.redisUrl, prefix: this.settings.queuePrefix, queues: { advance: concurrency }, lockDurationMs });
    this.host.start({ 'run.advance': async (p) => this.advancer.onStageSettled(p.stageKey) });
  }

  /** Runs the reconciler in this process: one process at a time (by a Redis lease) re-checks the running runs. */
  startReconciling(intervalMs?: number, log?: (obj: Record<string, unknown>, msg: string) => void): void {
    if (this.reconciler) return;
    this.reconciler = new Reconciler({ runs: this.runs, advancer: this.advancer }, { redisUrl: this.settings.redisUrl, queuePrefix: this.settings.queuePrefix, intervalMs, log });
    this.reconciler.start();
  }

  async close(): Promise<void> {
    await this.reconciler?.stop();
    await this.host?.close();
    await this.queue.close();
    this.pausesRedis?.disconnect();
    this.datasets.files.close?.(); // an S3 store's client and its sockets
    try {
      // An encoder that failed to open has nothing to close (its error went to whoever asked for it).
      await (await this.encoder?.catch(() => undefined))?.close();
    } finally {
      await this.db.destroy();
    }
  }
}
