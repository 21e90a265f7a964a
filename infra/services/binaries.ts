import { execFileSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Debian and Ubuntu keep the Postgres server binaries off PATH, one folder per major version. */
export const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';

export function pathDirectories(env: Record<string, string | undefined>): string[] {
  return (env.PATH ?? '').split(delimiter).filter((dir) => dir.length > 0);
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findExecutable(name: string, directories: string[]): string | undefined {
  for (const dir of directories) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** `/usr/lib/postgresql/<major>/bin`, newest major first. */
export function debianPostgresBinDirs(root = DEBIAN_POSTGRES_ROOT): string[] {
  let versions: string[];
  try {
    versions = readdirSync(root);
  } catch {
    return [];
  }
  return versions
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    .map((v) => join(root, v, 'bin'));
}

export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
  binDir: string;
}

/** initdb and pg_ctl must come from the same installation, so they are looked up as a pair. */
export function findPostgresBinaries(directories: string[]): PostgresBinaries | undefined {
  for (const dir of directories) {
    const initdb = join(dir, 'initdb');
    const pgCtl = join(dir, 'pg_ctl');
    if (isExecutable(initdb) && isExecutable(pgCtl)) return { initdb, pgCtl, binDir: dir };
  }
  return undefined;
}

/** `redis-server --version` prints e.g. "Redis server v=7.0.15 sha=...". */
export function redisServerVersion(binary: string): string | undefined {
  try {
    const out = execFileSync(binary, ['--version'], { encoding: 'utf8', timeout: 5_000 });
    return /v=(\d+(?:\.\d+)*)/.exec(out)?.[1];
  } catch {
    return undefined;
  }
}
