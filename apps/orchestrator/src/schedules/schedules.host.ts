import { existsSync } from 'node:fs';
import { Inject, Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import { ScheduleService, type OrchestratorCore, type PlanThread } from '@sqlsweep/orchestration';
import { ORCHESTRATOR_CORE, ORCHESTRATOR_ENV, PLAN_THREAD } from '../tokens';

/**
 * Settings the orchestrator's environment schema is to carry (libs/config); until it does, they read as undefined
 * and the defaults below apply.
 */
export interface ScheduleEnv {
  /** Default configs/schedules.yaml; when set explicitly the file must exist. */
  SQLSWEEP_SCHEDULES_FILE?: string;
  /** Overrides alerts.webhookUrl of the schedules file. */
  SQLSWEEP_ALERT_WEBHOOK_URL?: string;
}

export const defaultSchedulesFile = 'configs/schedules.yaml';

/**
 * Runs the nightly schedules inside the orchestrator: at start it reconciles BullMQ's job schedulers with the
 * schedules file and starts the `schedule.fire` worker and the regression checks; it stops them on shutdown.
 */
@Injectable()
export class SchedulesHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('schedules');
  private service?: ScheduleService;

  constructor(
    @Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore,
    @Inject(ORCHESTRATOR_ENV) private readonly env: AppEnv<'orchestrator'> & ScheduleEnv,
    /** Where fired schedules are planned; without it (a module without the API), in this process. */
    @Optional() @Inject(PLAN_THREAD) private readonly plans?: PlanThread,
  ) {}

  /** The running service, or undefined when this orchestrator has no schedules file. */
  get schedules(): ScheduleService | undefined {
    return this.service;
  }

  async onApplicationBootstrap(): Promise<void> {
    const file = this.env.SQLSWEEP_SCHEDULES_FILE ?? defaultSchedulesFile;
    if (!this.env.SQLSWEEP_SCHEDULES_FILE && !existsSync(file)) {
      this.logger.warn(`no ${file}: nightly schedules are off`);
      return;
    }
    this.service = new ScheduleService(this.core, {
      redisUrl: this.env.REDIS_URL, queuePrefix: this.env.SQLSWEEP_QUEUE_PREFIX, schedulesFile: file,
      webhookUrl: this.env.SQLSWEEP_ALERT_WEBHOOK_URL,
      log: (line) => this.logger.log(JSON.stringify(line)),
      createRun: this.plans?.createRun,
    });
    await this.service.start();
  }

  /** Before the module's shutdown hook closes the core (database, Redis) that the service uses. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.service?.close();
  }
}
