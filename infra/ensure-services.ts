/**
 * Makes Redis and Postgres available for this checkout and writes what was chosen to
 * .sqlsweep/services.json (also printed), for `npm run demo`, `npm test` and people.
 *
 *   node -r @swc-node/register infra/ensure-services.ts [--embedded-ok] [--no-redis] [--no-postgres] [--stop]
 *                                                       [--project-dir DIR]   (default: this checkout)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureServices, stopPrivateServices } from './services';

export const SERVICES_JSON = join('.sqlsweep', 'services.json');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'embedded-ok': { type: 'boolean', default: false },
      'no-redis': { type: 'boolean', default: false },
      'no-postgres': { type: 'boolean', default: false },
      stop: { type: 'boolean', default: false },
      'project-dir': { type: 'string' },
    },
  });
  const projectDir = resolve(values['project-dir'] ?? resolve(__dirname, '..'));
  if (values.stop) {
    const stopped = await stopPrivateServices({ projectDir, env: process.env });
    console.log(stopped.length ? `stopped: ${stopped.join(', ')}` : 'no private servers were running');
    return;
  }
  const endpoints = await ensureServices({
    projectDir,
    redis: !values['no-redis'],
    postgres: !values['no-postgres'],
    allowEmbeddedPostgres: values['embedded-ok'],
    env: process.env,
  });
  const outPath = join(projectDir, SERVICES_JSON);
  mkdirSync(join(projectDir, '.sqlsweep'), { recursive: true });
  const json = JSON.stringify(endpoints, null, 2);
  writeFileSync(outPath, `${json}\n`);
  console.log(json);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
