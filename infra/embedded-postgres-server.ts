/**
 * Long-lived embedded Postgres (PGlite over the wire protocol) for machines with no Postgres at all.
 * ensureServices starts it detached; it records its port and pid in --state-dir so later calls reuse it.
 *
 *   node -r @swc-node/register infra/embedded-postgres-server.ts --data-dir DIR --port 54330 [--state-dir DIR]
 */
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from './embedded-postgres';
import { clearServerState, writeServerState } from './services/server-state';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      'state-dir': { type: 'string' },
    },
  });
  const port = Number.parseInt(values.port ?? '', 10);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`--port: expected a TCP port, got "${values.port ?? ''}"`);
  const server = await startEmbeddedPostgres({ dataDir: values['data-dir'], port });
  const stateDir = values['state-dir'];
  if (stateDir) writeServerState(stateDir, { port, pid: process.pid });
  console.log(`embedded Postgres (PGlite) listening on ${server.url}${values['data-dir'] ? `, data in ${values['data-dir']}` : ''}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping embedded Postgres`);
    if (stateDir) clearServerState(stateDir);
    await server.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
