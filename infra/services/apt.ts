import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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

export function aptInstall(packages: string[], ctx: AptContext): void {
  const aptGet = findExecutable('apt-get', ctx.searchDirs);
  if (!aptGet) throw new Error('apt-get not found');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  ctx.log(`apt-get install -y ${packages.join(' ')} (this can take a minute)`);
  const update = spawnSync(aptGet, ['update'], { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (update.status !== 0) throw new Error(`apt-get update failed (exit ${update.status}): ${tail(update.stderr)}`);
  const install = spawnSync(aptGet, ['install', '-y', '--no-install-recommends', ...packages], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (install.status !== 0) {
    throw new Error(`apt-get install -y ${packages.join(' ')} failed (exit ${install.status}): ${tail(install.stderr)}`);
  }
}

function tail(text: string | null): string {
  return (text ?? '').trim().split('\n').slice(-5).join(' | ');
}
