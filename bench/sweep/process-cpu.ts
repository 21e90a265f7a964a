import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/**
 * CPU milliseconds (user + system, with the reaped children of each, so a Postgres backend that exited still counts
 * through the postmaster) of this machine's processes named `comm` or with one of `pids`, read from /proc.
 */
export function processCpuMs(select: { comm?: string; pids?: number[] }): number {
  const pids = select.pids ?? readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited since the listing
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (select.comm && comm !== select.comm) continue;
    // Fields after "(comm) ": state is field 3, utime 14, stime 15, cutime 16, cstime 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += [11, 12, 13, 14].reduce((t, i) => t + Number(fields[i]), 0);
  }
  return (ticks * 1000) / ticksPerSecond;
}

/** CPU milliseconds of the machine's Postgres and Redis servers: what the orchestration's queries and queue cost. */
export function serverCpuMs(): { postgres: number; redis: number } {
  return { postgres: processCpuMs({ comm: 'postgres' }), redis: processCpuMs({ comm: 'redis-server' }) };
}
