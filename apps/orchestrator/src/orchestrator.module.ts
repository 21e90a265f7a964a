import { Inject, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { AppEnv } from '@sqlsweep/config';
import { ReplicaMaterializer } from '@sqlsweep/datasets';
import { ApiMetricsRepository } from '@sqlsweep/db';
import { OrchestratorCore, PlanThread } from '@sqlsweep/orchestration';
import { BearerGuard } from './bearer.guard';
import { CatalogController } from './catalog.controller';
import { CompareController } from './compare.controller';
import { createMetricsRegistry } from './metrics';
import { MetricsController } from './metrics.controller';
import { ModelsController } from './models.controller';
import { OpenApiController } from './openapi.controller';
import { ResultsController } from './results.controller';
import { RunsController } from './runs.controller';
import { schedulesControllers, schedulesProviders } from './schedules';
import { ResultTableRunner } from './result-tables';
import { API_METRICS, METRICS_REGISTRY, ORCHESTRATOR_CORE, ORCHESTRATOR_ENV, PLAN_THREAD, REPORTS, RESULT_TABLES } from './tokens';

@Module({})
export class OrchestratorModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore,
    @Inject(RESULT_TABLES) private readonly tables: ResultTableRunner,
    @Inject(PLAN_THREAD) private readonly plans: PlanThread,
  ) {}

  static forCore(env: AppEnv<'orchestrator'>, core: OrchestratorCore): DynamicModule {
    const metricsRepo = new ApiMetricsRepository(core.db);
    const plans = new PlanThread(core.settings);
    return {
      module: OrchestratorModule,
      controllers: [RunsController, ResultsController, CatalogController, CompareController, OpenApiController, MetricsController, ModelsController, ...schedulesControllers],
      providers: [
        { provide: ORCHESTRATOR_ENV, useValue: env },
        { provide: ORCHESTRATOR_CORE, useValue: core },
        { provide: REPORTS, useValue: core.reports },
        { provide: API_METRICS, useValue: metricsRepo },
        { provide: RESULT_TABLES, useValue: new ResultTableRunner(new ReplicaMaterializer({ dataDir: env.SQLSWEEP_DATA_DIR, store: core.datasets.files })) },
        { provide: PLAN_THREAD, useValue: plans },
        { provide: METRICS_REGISTRY, useValue: createMetricsRegistry(metricsRepo, core.queue) },
        BearerGuard,
        // Every route, including one whose controller forgets @UseGuards, goes through the access rule.
        { provide: APP_GUARD, useExisting: BearerGuard },
        ...schedulesProviders,
      ],
    };
  }

  /** Plans are made off the event loop, in a thread started before the app listens: the first POST /runs does not wait for it to load. */
  async onModuleInit(): Promise<void> {
    await this.plans.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.tables.close();
    await this.plans.close();
    await this.core.close();
  }
}
