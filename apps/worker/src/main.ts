import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { appEnvSchemas, ConfigError, parseEnv } from '@sqlsweep/config';
import { WorkerModule } from './worker.module';

/** A worker process: a Nest application context with no HTTP, serving the roles named in SQLSWEEP_ROLES. */
async function main(): Promise<void> {
  const env = parseEnv(appEnvSchemas.worker, process.env, 'worker environment');
  const app = await NestFactory.createApplicationContext(WorkerModule.forEnv(env, { ...process.env }), { logger: ['error', 'warn'] });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof ConfigError ? e.message : (e as Error).stack}\n`);
  process.exit(1);
});
