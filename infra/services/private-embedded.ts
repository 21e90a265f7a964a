import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { probePostgres, waitFor } from './probe';
import { clearServerState, findFreePort, liveServerState, terminateProcess } from './server-state';

export interface EmbeddedServer {
  url: string;
  port: number;
  reused: boolean;
}

const SERVER_SCRIPT = resolve(__dirname, '..', 'embedded-postgres-server.ts');
const REPO_ROOT = resolve(__dirname, '..', '..');

const urlFor = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;

export async function reusableEmbeddedPostgres(dir: string): Promise<EmbeddedServer | undefined> {
  const state = liveServerState(dir);
  if (!state) return undefined;
  const probe = await probePostgres(urlFor(state.port));
  return probe.ok ? { url: urlFor(state.port), port: state.port, reused: true } : undefined;
}

/** Spawns infra/embedded-postgres-server.ts detached, so it outlives this process and is reused later. */
export async function startEmbeddedServer(dir: string, preferredPort: number): Promise<EmbeddedServer> {
  mkdirSync(dir, { recursive: true });
  const port = await findFreePort(preferredPort);
  const logPath = join(dir, 'pglite.log');
  const logFd = openSync(logPath, 'a');
  const child = spawn(
    process.execPath,
    [
      '-r', require.resolve('@swc-node/register'),
      SERVER_SCRIPT,
      '--data-dir', join(dir, 'data'),
      '--port', String(port),
      '--state-dir', dir,
    ],
    { cwd: REPO_ROOT, detached: true, stdio: ['ignore', logFd, logFd] },
  );
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited with ${signal ?? code} — see ${logPath}`;
  });
  child.unref();
  const url = urlFor(port);
  await waitFor(
    `embedded Postgres on port ${port} (log: ${logPath})`,
    async () => (exited ? { ok: false, reason: exited, final: true } : probePostgres(url)),
    60_000,
  );
  return { url, port, reused: false };
}

export async function stopEmbeddedServer(dir: string): Promise<boolean> {
  const state = liveServerState(dir);
  if (!state) return false;
  await terminateProcess(state.pid);
  clearServerState(dir);
  return true;
}
