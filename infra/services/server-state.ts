import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isProcessAlive } from './file-lock';

/**
 * A private server keeps `port` and `pid` files in its folder under .sqlsweep/services/<name>/,
 * so a later call (another process, another day) finds and reuses it.
 */
export interface ServerState {
  port: number;
  pid: number;
}

export function readServerState(dir: string): ServerState | undefined {
  try {
    const port = Number.parseInt(readFileSync(join(dir, 'port'), 'utf8'), 10);
    const pid = Number.parseInt(readFileSync(join(dir, 'pid'), 'utf8'), 10);
    if (!Number.isInteger(port) || !Number.isInteger(pid)) return undefined;
    return { port, pid };
  } catch {
    return undefined;
  }
}

/** The recorded server, if its process is still alive. */
export function liveServerState(dir: string): ServerState | undefined {
  const state = readServerState(dir);
  return state && isProcessAlive(state.pid) ? state : undefined;
}

export function writeServerState(dir: string, state: ServerState): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'port'), `${state.port}\n`);
  writeFileSync(join(dir, 'pid'), `${state.pid}\n`);
}

export function clearServerState(dir: string): void {
  rmSync(join(dir, 'port'), { force: true });
  rmSync(join(dir, 'pid'), { force: true });
}

export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The first free port at or after `preferred` (non-default ports, so we never shadow a system server). */
export async function findFreePort(preferred: number, attempts = 50): Promise<number> {
  for (let port = preferred; port < preferred + attempts; port++) {
    if (await isPortFree(port)) return port;
  }
  throw new Error(`no free TCP port on 127.0.0.1 in ${preferred}..${preferred + attempts - 1}`);
}

/** SIGTERM, then wait for the process to go; SIGKILL if it will not. */
export async function terminateProcess(pid: number, graceMs = 10_000): Promise<void> {
  if (!isProcessAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
}
