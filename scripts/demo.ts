/**
 * `npm run demo`: set-up, then a real sweep on the bundled benchmark through the same commands a user types:
 * register minibench, start the LLM simulator, run configs/sweeps/demo.yaml with two local worker processes.
 */
import { join } from 'node:path';
import { spawnSimulator } from '@sqlsweep/cli/src/local-processes';
import { projectDir, setup } from './setup';
import { runSteps } from './run-steps';

async function main(): Promise<void> {
  const endpoints = await setup({ allowEmbeddedPostgres: true });
  const sim = await spawnSimulator(['data/minibench/dist']);
  console.log(`llm-sim: ${sim.url} (simulated answers: results are labelled simulated)`);
  const env = {
    REDIS_URL: endpoints.redisUrl, DATABASE_URL: endpoints.databaseUrl, SQLSWEEP_LLM_SIM_URL: sim.url,
    SQLSWEEP_QUEUE_PREFIX: process.env.SQLSWEEP_QUEUE_PREFIX ?? 'sqlsweep',
  };
  const cli = join(projectDir, 'bin', 'sqlsweep');
  try {
    await runSteps([
      { name: 'sqlsweep datasets add minibench', command: process.execPath, args: [cli, 'datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env },
      { name: 'sqlsweep run configs/sweeps/demo.yaml', command: process.execPath, args: [cli, 'run', 'configs/sweeps/demo.yaml', '--workers', '2'], env },
    ], projectDir);
  } finally {
    await sim.stop();
  }
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
