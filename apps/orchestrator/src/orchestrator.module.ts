import { Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import { OrchestratorCore } from '@sqlsweep/orchestration';
import { RunsController } from './runs.controller';
import { BearerGuard } from './bearer.guard';
import { ORCHESTRATOR_CORE, ORCHESTRATOR_ENV } from './tokens';

@Module({})
export class OrchestratorModule implements OnApplicationShutdown {
  constructor(@Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore) {}

  static forCore(env: AppEnv<'orchestrator'>, core: OrchestratorCore): DynamicModule {
    return {
      module: OrchestratorModule,
      controllers: [RunsController],
      providers: [{ provide: ORCHESTRATOR_ENV, useValue: env }, { provide: ORCHESTRATOR_CORE, useValue: core }, BearerGuard],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.core.close();
  }
}
