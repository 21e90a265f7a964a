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

/** The parent pid of a process, from /proc (undefined once it has exited). */
function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The live children of `pids`. */
function liveChildren(pids: number[]): number[] {
  const all = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  return all.filter((p) => pids.includes(parentPid(p) ?? -1));
}

/** A process and its live children: a Postgres postmaster with its backends (exited ones count in its own times). */
function withChildren(pid: number): number[] {
  return [pid, ...liveChildren([pid])];
}

/** CPU milliseconds of the live children of `pids`: the workers' pooled sandbox processes, which are reaped only at exit. */
export function childrenCpuMs(pids: number[]): number {
  return processCpuMs({ pids: liveChildren(pids) });
}

/** CPU milliseconds this machine spent busy (all of /proc/stat's first line but idle and iowait), every process and the kernel. */
export function machineBusyCpuMs(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const busy = ticks.slice(0, 8).reduce((t, v, i) => (i === 3 || i === 4 ? t : t + v), 0);
  return (busy * 1000) / ticksPerSecond;
}

/** The pids of the Postgres and Redis servers the benchmark talks to (other tenants' servers left out). */
export interface ServerPids { postmaster?: number; redis?: number }

/**
 * CPU milliseconds of the benchmark's Postgres server (its postmaster, with exited backends, and the live backends)
 * and Redis server: what the orchestration's queries and queue cost. A server whose pid is not known here counts as
 * every process of its name on the machine.
 */
export function serverCpuMs(servers: ServerPids): { postgres: number; redis: number } {
  return {
    postgres: servers.postmaster ? processCpuMs({ pids: withChildren(servers.postmaster) }) : processCpuMs({ comm: 'postgres' }),
    redis: servers.redis ? processCpuMs({ pids: [servers.redis] }) : processCpuMs({ comm: 'redis-server' }),
  };
}
