import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { sleep } from './probe';

/**
 * Cross-process mutual exclusion by an O_EXCL lock file holding the owner's pid, so two
 * processes (say `npm test` and `npm run demo`) never start the same private server twice.
 * A lock left by a dead process is taken over.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  mkdirSync(dirname(lockPath), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (isStale(lockPath)) {
        rmSync(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`${lockPath}: still locked by pid ${readOwner(lockPath)} after ${timeoutMs} ms`);
      }
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

/** Stale: its owner is dead. An empty file younger than a few seconds is a lock being written. */
function isStale(lockPath: string): boolean {
  const owner = readOwner(lockPath);
  if (owner !== undefined) return !isProcessAlive(owner);
  try {
    return Date.now() - statSync(lockPath).mtimeMs > 5_000;
  } catch {
    return false;
  }
}

function readOwner(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
    return Number.isFinite(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function isProcessAlive(pid: number | undefined): boolean {
  if (pid === undefined || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
