import { dirname, resolve } from 'node:path';
import { ScheduleRepository } from '@sqlsweep/db';
import { jobCatalog, WorkerHost, type Job } from '@sqlsweep/queue';
import type { OrchestratorCore } from '../core';
import type { RunCreator } from '../run-creation';
import { RegressionChecker } from './regression-checker';
import { ScheduleFirer } from './schedule-firer';
import { reconcileSchedulers, type ReconcileReport } from './scheduler-reconciler';
import { loadSchedulesFile, type SchedulesFile } from './schedules-file';

export interface ScheduleServiceOptions {
  redisUrl: string;
  queuePrefix: string;
  /** configs/schedules.yaml; sweep paths inside it are relative to the repository root, i.e. the file's parent's parent. */
  schedulesFile: string;
  /** Overrides `alerts.webhookUrl` of the file. */
  webhookUrl?: string;
  /** How often finished scheduled runs are looked for (and failed alert deliveries retried). */
  checkEveryMs?: number;
  /** Folder that sweep paths are resolved against; default: the folder above the schedules file's folder. */
  baseDir?: string;
  resamples?: number;
  alertRetryDelayMs?: number;
  log?: (line: Record<string, unknown>) => void;
  /** Plans and starts a fired schedule's run; default: in this process. */
  createRun?: RunCreator;
}

/** BullMQ job scheduler ids end their job ids with the fire time: `repeat:<scheduler>:<millis>`. */
export function fireTimeOf(job: Job, payloadFiredAt?: string): Date {
  if (payloadFiredAt) return new Date(payloadFiredAt);
  const millis = job.opts.prevMillis ?? Number(/:(\d+)$/.exec(job.id ?? '')?.[1] ?? job.timestamp);
  return new Date(millis);
}

/**
 * Nightly benchmarks in the orchestrator: reconciles the job schedulers with the schedules file at start, turns
 * each `schedule.fire` job into a run, and periodically checks finished scheduled runs for regressions.
 */
export class ScheduleService {
  readonly repository: ScheduleRepository;
  readonly checker: RegressionChecker;
  private readonly firer: ScheduleFirer;
  private file: SchedulesFile;
  private host?: WorkerHost;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<unknown>;

  constructor(private readonly core: OrchestratorCore, private readonly opts: ScheduleServiceOptions) {
    this.file = loadSchedulesFile(opts.schedulesFile);
    this.repository = new ScheduleRepository(core.db);
    this.firer = new ScheduleFirer({
      planner: core.planner, advancer: core.advancer, schedules: this.repository, file: () => this.file,
      baseDir: opts.baseDir ?? resolve(dirname(opts.schedulesFile), '..'), createRun: opts.createRun,
    });
    this.checker = new RegressionChecker({
      schedules: this.repository, webhookUrl: opts.webhookUrl ?? this.file.alerts.webhookUrl, resamples: opts.resamples,
      retryDelayMs: opts.alertRetryDelayMs, log: opts.log,
    });
  }

  get schedules(): SchedulesFile['schedules'] {
    return this.file.schedules;
  }

  /** Re-reads the file and makes the job schedulers match it. */
  async reconcile(): Promise<ReconcileReport> {
    this.file = loadSchedulesFile(this.opts.schedulesFile);
    const report = await reconcileSchedulers(this.core.queue.queue(jobCatalog['schedule.fire'].queue), this.file);
    this.opts.log?.({ msg: 'schedules reconciled', ...report });
    return report;
  }

  async start(): Promise<ReconcileReport> {
    const report = await this.reconcile();
    this.host = new WorkerHost({ redisUrl: this.opts.redisUrl, prefix: this.opts.queuePrefix, queues: { [jobCatalog['schedule.fire'].queue]: 1 } });
    this.host.start({
      'schedule.fire': async (payload, job) => {
        const result = await this.firer.fire(payload.schedule, fireTimeOf(job, payload.firedAt));
        this.opts.log?.({ msg: 'schedule fired', schedule: payload.schedule, ...result });
      },
    });
    this.timer = setInterval(() => void this.tickOnce(), this.opts.checkEveryMs ?? 15_000);
    return report;
  }

  /** One check pass; overlapping timer ticks wait for the running one instead of racing it. */
  tickOnce(): Promise<unknown> {
    this.ticking ??= this.checker.tick()
      .catch((e: unknown) => this.opts.log?.({ msg: 'regression check failed', error: (e as Error).message }))
      .finally(() => { this.ticking = undefined; });
    return this.ticking;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.host?.close();
  }
}
