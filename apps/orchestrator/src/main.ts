import 'reflect-metadata';
import { appEnvSchemas, ConfigError, parseEnv } from '@sqlsweep/config';
import { createOrchestratorApp } from './app';

async function main(): Promise<void> {
  const env = parseEnv(appEnvSchemas.orchestrator, process.env, 'orchestrator environment');
  const app = await createOrchestratorApp(env, { ...process.env });
  await app.listen(env.PORT, '0.0.0.0');
  process.stdout.write(`${JSON.stringify({ msg: 'orchestrator listening', url: await app.getUrl() })}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof ConfigError ? e.message : (e as Error).stack}\n`);
  process.exit(1);
});
