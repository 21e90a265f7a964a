import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findExecutable } from './binaries';

export interface AptContext {
  searchDirs: string[];
  log: (line: string) => void;
}

/** apt-get is only used on Debian/Ubuntu, as root; everywhere else the caller prints what to run. */
export function canUseApt(ctx: AptContext): boolean {
  return (
    existsSync('/etc/debian_version') &&
    typeof process.getuid === 'function' &&
    process.getuid() === 0 &&
    findExecutable('apt-get', ctx.searchDirs) !== undefined
  );
}

/**
 * Installs `packages` unless dpkg has them all. Processes that start side by side (test files, services, set-up)
 * install one at a time, under one lock file (flock(1)), and the second finds the package there. apt-get update does
 * not wait for a lists lock another apt holds (DPkg::Lock::Timeout covers dpkg's lock only), so it is retried for up
 * to five minutes.
 */
export function aptInstall(packages: string[], ctx: AptContext): void {
  const aptGet = findExecutable('apt-get', ctx.searchDirs);
  if (!aptGet) throw new Error('apt-get not found');
  ctx.log(`apt-get install -y ${packages.join(' ')} (this can take a minute)`);
  const script = `
    for p in "$@"; do dpkg-query -W -f='\${Status}' "$p" 2>/dev/null | grep -q ' installed$' || missing=1; done
    [ -z "$missing" ] && exit 0
    for i in $(seq 60); do "$APT_GET" update && break; [ "$i" = 60 ] && exit 1; sleep 5; done
    "$APT_GET" -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "$@"`;
  const run = spawnSync('flock', ['-w', '900', join(tmpdir(), 'sqlsweep-apt.lock'), 'sh', '-c', script, 'sh', ...packages], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', APT_GET: aptGet }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 1_200_000,
  });
  if (run.status !== 0) {
    throw new Error(`apt-get install -y ${packages.join(' ')} failed (exit ${run.status ?? run.signal ?? run.error?.message}): ${tail(run.stderr)}`);
  }
}

function tail(text: string | null): string {
  return (text ?? '').trim().split('\n').slice(-5).join(' | ');
}
