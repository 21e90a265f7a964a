import { Module, type DynamicModule } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import { PROVIDER_ENV, WORKER_ENV, WorkerService } from './worker.service';

@Module({})
export class WorkerModule {
  static forEnv(env: AppEnv<'worker'>, providerEnv: Record<string, string | undefined>): DynamicModule {
    return {
      module: WorkerModule,
      providers: [{ provide: WORKER_ENV, useValue: env }, { provide: PROVIDER_ENV, useValue: providerEnv }, WorkerService],
    };
  }
}
