import { createDb, DatasetRepository, ensureDatabase, migrateToLatest, RunRepository, StageRepository, type Db } from '@sqlsweep/db';
import { LlmClient, loadModelCatalog, type ModelCatalog } from '@sqlsweep/llm';
import { QueueClient, WorkerHost } from '@sqlsweep/queue';
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
}

/** The orchestrator's parts, wired once; shared by the HTTP app and the CLI. */
export class OrchestratorCore {
  readonly db: Db;
  readonly datasets: DatasetRepository;
  readonly runs: RunRepository;
  readonly stages: StageRepository;
  readonly queue: QueueClient;
  readonly catalog: ModelCatalog;
  readonly planner: Planner;
  readonly advancer: Advancer;
  private host?: WorkerHost;
  private reconciler?: Reconciler;

  /** Also what a plan thread (plan-thread.ts) opens its own core with. */
  constructor(readonly settings: CoreSettings) {
    this.db = createDb(settings.databaseUrl);
    this.datasets = new DatasetRepository(this.db);
    this.runs = new RunRepository(this.db);
    this.stages = new StageRepository(this.db);
    this.queue = new QueueClient(settings.redisUrl, settings.queuePrefix);
    this.catalog = loadModelCatalog(settings.modelsFile);
    const llm = new LlmClient({ catalog: this.catalog, env: settings.providerEnv });
    this.planner = new Planner({
      datasets: this.datasets, runs: this.runs, stages: this.stages, budget: settings.admission, corpusDir: settings.corpusDir,
      assertModelsUsable: (models) => llm.assertUsable(models),
      estimateCall: (call) => llm.estimateCall({ ...call, templateVersion: call.templateVersion }, call.expectedOutputTokens ?? Math.ceil(call.maxTokens / 4)),
      isSimulated: (model) => {
        const m = this.catalog.models[model];
        return m !== undefined && this.catalog.providers[m.provider]?.simulated === true;
      },
    });
    this.advancer = new Advancer(this.runs, this.queue);
  }

  /** Creates the database if missing and applies pending migrations. */
  static async prepareDatabase(databaseUrl: string): Promise<string[]> {
    await ensureDatabase(databaseUrl);
    return migrateToLatest(databaseUrl);
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
    await this.db.destroy();
  }
}
