/**
 * `npm test`: set-up (services, minibench), then type-check, the architecture check and every Jest suite.
 * Extra arguments go to Jest: `npm test -- libs/db`.
 */
import { join } from 'node:path';
import { projectDir, setup } from './setup';
import { runSteps } from './run-steps';

async function main(): Promise<void> {
  const endpoints = await setup({ allowEmbeddedPostgres: false });
  const bin = (name: string) => join(projectDir, 'node_modules', '.bin', name);
  const env = { REDIS_URL: endpoints.redisUrl, DATABASE_URL: endpoints.databaseUrl, NX_DAEMON: 'false' };
  const jestArgs = process.argv.slice(2);
  await runSteps([
    { name: 'type-check (tsc --noEmit, strict)', command: bin('tsc'), args: ['--noEmit', '-p', 'tsconfig.json'] },
    { name: 'architecture (Nx tags, module boundaries, cycles)', command: process.execPath, args: ['-r', '@swc-node/register', 'scripts/check-architecture.ts'], env },
    { name: 'jest', command: bin('jest'), args: ['--ci', ...jestArgs], env },
  ], projectDir);
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
