import { Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import { ApiMetricsRepository, ApiReadRepository } from '@sqlsweep/db';
import { OrchestratorCore } from '@sqlsweep/orchestration';
import { BearerGuard } from './bearer.guard';
import { CatalogController } from './catalog.controller';
import { CompareController } from './compare.controller';
import { createMetricsRegistry } from './metrics';
import { MetricsController } from './metrics.controller';
import { OpenApiController } from './openapi.controller';
import { ResultsController } from './results.controller';
import { RunsController } from './runs.controller';
import { schedulesControllers, schedulesProviders } from './schedules';
import { ResultTableRunner } from './result-tables';
import { API_METRICS, API_READS, METRICS_REGISTRY, ORCHESTRATOR_CORE, ORCHESTRATOR_ENV, RESULT_TABLES } from './tokens';

@Module({})
export class OrchestratorModule implements OnApplicationShutdown {
  constructor(
    @Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore,
    @Inject(RESULT_TABLES) private readonly tables: ResultTableRunner,
  ) {}

  static forCore(env: AppEnv<'orchestrator'>, core: OrchestratorCore): DynamicModule {
    const metricsRepo = new ApiMetricsRepository(core.db);
    return {
      module: OrchestratorModule,
      controllers: [RunsController, ResultsController, CatalogController, CompareController, OpenApiController, MetricsController, ...schedulesControllers],
      providers: [
        { provide: ORCHESTRATOR_ENV, useValue: env },
        { provide: ORCHESTRATOR_CORE, useValue: core },
        { provide: API_READS, useValue: new ApiReadRepository(core.db) },
        { provide: API_METRICS, useValue: metricsRepo },
        { provide: RESULT_TABLES, useValue: new ResultTableRunner() },
        { provide: METRICS_REGISTRY, useValue: createMetricsRegistry(metricsRepo, core.queue) },
        BearerGuard,
        ...schedulesProviders,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.tables.close();
    await this.core.close();
  }
}
