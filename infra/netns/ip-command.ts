/**
 * `ip` and `tc` run synchronously (so that cleanup can run in an `exit` handler), with their error output in the
 * error thrown.
 */
import { spawnSync } from 'node:child_process';
import { findExecutable } from '../services/binaries';

const SBIN = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

export function findIpTools(): { ip?: string; tc?: string } {
  const dirs = [...(process.env.PATH ?? '').split(':').filter(Boolean), ...SBIN];
  return { ip: findExecutable('ip', dirs), tc: findExecutable('tc', dirs) };
}

export interface CommandResult { ok: boolean; stdout: string; stderr: string }

export function runTool(binary: string, args: string[]): CommandResult {
  const r = spawnSync(binary, args, { encoding: 'utf8', timeout: 15_000 });
  return { ok: r.status === 0, stdout: r.stdout ?? '', stderr: (r.stderr ?? '').trim() || (r.error?.message ?? '') };
}

export function runToolChecked(binary: string, args: string[]): string {
  const r = runTool(binary, args);
  if (!r.ok) throw new Error(`${binary} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}
