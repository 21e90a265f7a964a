import { Worker } from 'node:worker_threads';

/** How often the watch thread asks for the parent's pid: the most a query outlives a dead parent by. */
export const PARENT_POLL_MS = 100;

// Plain JS, run with `eval`: the thread needs no TypeScript loader and starts in a few milliseconds.
const WATCH_SOURCE = `
const { workerData } = require('node:worker_threads');
const check = () => { if (process.ppid !== workerData.parentPid) process.kill(process.pid, 'SIGKILL'); };
check();
setInterval(check, workerData.pollMs);
`;

/**
 * Makes this process die with its parent. A synchronous better-sqlite3 query blocks the main thread's event loop,
 * so neither the IPC 'disconnect' event nor a timer can run until the query ends (never, for a runaway one); a
 * thread of its own can. It polls the parent pid (a dead parent's children are re-parented, so the pid changes) and
 * SIGKILLs the whole process the moment it does. `parentPid` comes from the parent itself, so a parent that died
 * before this call is noticed too. The thread costs about 10 MiB of resident memory per child.
 */
export function dieWithParent(parentPid: number, pollMs = PARENT_POLL_MS): void {
  const watch = new Worker(WATCH_SOURCE, { eval: true, workerData: { parentPid, pollMs } });
  watch.unref(); // the watch never keeps the process alive by itself
  // A child that lost its watch could outlive its parent: it stops, and the pool replaces it.
  watch.on('error', (err) => {
    process.stderr.write(`sandbox child: parent watch failed: ${err.message}\n`);
    process.exit(1);
  });
}
