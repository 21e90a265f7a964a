/**
 * Removes what a crashed harness run left: namespaces (and the processes still running in them) and links whose
 * name carries the tag of a process that no longer runs. A live run's names are never touched.
 */
import { isProcessAlive } from '../services/file-lock';
import { runTool } from './ip-command';
import { creatorPid } from './names';

export interface StaleRemoved { namespaces: string[]; links: string[]; processes: number[] }

function isStale(name: string): boolean {
  const pid = creatorPid(name);
  return pid !== undefined && pid !== process.pid && !isProcessAlive(pid);
}

/** The processes running in a namespace, by `ip netns pids`. */
export function processesIn(ip: string, namespace: string): number[] {
  const r = runTool(ip, ['netns', 'pids', namespace]);
  return r.ok ? r.stdout.split('\n').map((l) => Number.parseInt(l, 10)).filter((p) => Number.isInteger(p) && p > 0) : [];
}

export function removeStaleLeftovers(ip: string): StaleRemoved {
  const removed: StaleRemoved = { namespaces: [], links: [], processes: [] };
  const namespaces = runTool(ip, ['netns', 'list']).stdout.split('\n').map((l) => l.split(' ')[0]).filter(Boolean);
  for (const ns of namespaces.filter(isStale)) {
    for (const pid of processesIn(ip, ns)) {
      try {
        process.kill(pid, 'SIGKILL');
        removed.processes.push(pid);
      } catch { /* gone meanwhile */ }
    }
    if (runTool(ip, ['netns', 'del', ns]).ok) removed.namespaces.push(ns);
  }
  // `N: name@peer: <...>` or `N: name: <...>`
  const links = runTool(ip, ['-o', 'link', 'show']).stdout.split('\n').map((l) => /^\d+:\s+([^:@\s]+)/.exec(l)?.[1]).filter((n): n is string => !!n);
  for (const link of links.filter(isStale)) if (runTool(ip, ['link', 'del', link]).ok) removed.links.push(link);
  return removed;
}
