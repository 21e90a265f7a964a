import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PostgresBinaries } from './binaries';
import { findExecutable } from './binaries';
import { isProcessAlive } from './file-lock';
import { probePostgres, waitFor } from './probe';
import { clearServerState, findFreePort, readServerState, writeServerState } from './server-state';

export interface PrivatePostgres {
  /** URL of the maintenance database `postgres`; the caller creates the app database. */
  maintenanceUrl: string;
  port: number;
  reused: boolean;
}

export function postgresUrlFor(port: number, database: string): string {
  return `postgres://postgres@127.0.0.1:${port}/${database}`;
}

const layout = (dir: string) => ({
  data: join(dir, 'data'),
  log: join(dir, 'postgres.log'),
});

/** The recorded cluster, if its postmaster is alive and answering on the recorded port. */
export async function reusablePrivatePostgres(dir: string): Promise<PrivatePostgres | undefined> {
  const state = readServerState(dir);
  const postmasterPid = readPostmasterPid(layout(dir).data);
  if (!state || postmasterPid === undefined || !isProcessAlive(postmasterPid)) return undefined;
  const url = postgresUrlFor(state.port, 'postgres');
  const probe = await probePostgres(url);
  return probe.ok ? { maintenanceUrl: url, port: state.port, reused: true } : undefined;
}

export interface StartPrivatePostgresOptions {
  dir: string;
  binaries: PostgresBinaries;
  preferredPort: number;
  searchDirs: string[];
  log: (line: string) => void;
}

/**
 * initdb (once) and pg_ctl start a cluster in `dir`, trust auth for superuser `postgres`, listening on
 * 127.0.0.1 only. initdb and postgres refuse to run as root, so as root they
 * run as the `postgres` OS user (runuser), which must be able to reach `dir`.
 */
export async function startPrivatePostgres(opts: StartPrivatePostgresOptions): Promise<PrivatePostgres> {
  const paths = layout(opts.dir);
  const runAs = commandRunner(opts.searchDirs);
  mkdirSync(opts.dir, { recursive: true });
  if (runAs.owner) {
    assertReachableBy(opts.dir);
    chownTree(opts.dir, runAs.owner.uid, runAs.owner.gid);
  }
  if (!existsSync(join(paths.data, 'PG_VERSION'))) {
    opts.log(`postgres: initdb ${paths.data}`);
    runAs.run(opts.binaries.initdb, ['-D', paths.data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale']);
  }
  const port = await findFreePort(opts.preferredPort);
  runAs.run(opts.binaries.pgCtl, [
    '-D', paths.data,
    '-l', paths.log,
    '-w', '-t', '60',
    // TCP on loopback only; no Unix socket, whose path would be too long in a deep project folder
    '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=`,
    'start',
  ]);
  const url = postgresUrlFor(port, 'postgres');
  await waitFor(`private postgres on port ${port} (log: ${paths.log})`, () => probePostgres(url), 30_000);
  const pid = readPostmasterPid(paths.data);
  if (pid === undefined) throw new Error(`${paths.data}/postmaster.pid missing after pg_ctl start; see ${paths.log}`);
  writeServerState(opts.dir, { port, pid });
  return { maintenanceUrl: url, port, reused: false };
}

/** pg_ctl stop for the cluster in `dir`, if it runs: `fast` by default, `immediate` as a crash does (the chaos benchmark). */
export function stopPrivatePostgres(dir: string, binaries: PostgresBinaries, searchDirs: string[], mode: 'fast' | 'immediate' = 'fast'): boolean {
  const paths = layout(dir);
  const pid = readPostmasterPid(paths.data);
  clearServerState(dir);
  if (pid === undefined || !isProcessAlive(pid)) return false;
  commandRunner(searchDirs).run(binaries.pgCtl, ['-D', paths.data, '-m', mode, '-w', 'stop']);
  return true;
}

function readPostmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '', 10);
    return Number.isInteger(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

interface CommandRunner {
  owner?: { uid: number; gid: number };
  run(binary: string, args: string[]): void;
}

function commandRunner(searchDirs: string[]): CommandRunner {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) return { run: (binary, args) => runChecked(binary, args) };
  const owner = postgresUser();
  const runuser = findExecutable('runuser', [...searchDirs, '/usr/sbin', '/sbin']);
  if (!runuser) throw new Error('running as root, initdb must run as user postgres, but runuser was not found (util-linux)');
  return { owner, run: (binary, args) => runChecked(runuser, ['-u', 'postgres', '--', binary, ...args]) };
}

function postgresUser(): { uid: number; gid: number } {
  try {
    const uid = Number.parseInt(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }), 10);
    const gid = Number.parseInt(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }), 10);
    return { uid, gid };
  } catch {
    throw new Error(
      'running as root: initdb refuses root and there is no "postgres" OS user. Run: useradd --system --home /var/lib/postgresql postgres',
    );
  }
}

function runChecked(binary: string, args: string[]): void {
  const result = spawnSync(binary, args, { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    const output = `${result.stderr ?? ''}${result.stdout ?? ''}`.trim().split('\n').slice(-8).join(' | ');
    throw new Error(`${binary} ${args.join(' ')} failed (exit ${result.status ?? result.signal}): ${output}`);
  }
}

/** The `postgres` user must be able to traverse every ancestor of the cluster folder. */
function assertReachableBy(dir: string): void {
  for (let current = dirname(dir); ; current = dirname(current)) {
    const mode = statSync(current).mode;
    if ((mode & 0o001) === 0) {
      throw new Error(
        `${current} is not traversable by other users (mode ${(mode & 0o777).toString(8)}), so the postgres user ` +
          `cannot reach ${dir}. Run: chmod o+x ${current}`,
      );
    }
    if (current === dirname(current)) return;
  }
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (!statSync(path).isDirectory()) return;
  for (const entry of readdirSync(path)) chownTree(join(path, entry), uid, gid);
}
