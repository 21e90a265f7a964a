import { spawn } from 'node:child_process';
import { localProcess } from './local-processes';
import { WorkerSupervisor } from './worker-supervisor';

/** A real process that lives until it is killed (the supervisor's job does not depend on what the process runs). */
const sleeper = () => localProcess(spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' }), 2_000);
const alive = (pid: number | undefined) => {
  try {
    return pid !== undefined && process.kill(pid, 0);
  } catch {
    return false;
  }
};
async function until(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('WorkerSupervisor', () => {
  let sup: WorkerSupervisor | undefined;
  afterEach(async () => {
    await sup?.stop();
    sup = undefined;
  });

  it('restarts a worker that died, after a backoff that doubles while it keeps dying, and says so', async () => {
    const said: string[] = [];
    sup = new WorkerSupervisor(2, { spawn: sleeper, say: (l) => said.push(l), firstBackoffMs: 100, maxBackoffMs: 1_000 });
    const [first, other] = sup.pids();
    process.kill(first!, 'SIGKILL');
    await until('the restart', () => sup!.restarts === 1 && sup!.pids()[0] !== undefined);
    const second = sup.pids()[0]!;
    expect(second).not.toBe(first);
    expect(alive(second)).toBe(true);
    expect(sup.pids()[1]).toBe(other); // the other slot is left alone
    expect(said).toEqual([
      expect.stringMatching(new RegExp(`^worker 1 \\(pid ${first}\\) was killed by SIGKILL after 0 s; restarting it in 0\\.1 s$`)),
      `worker 1 restarted (pid ${second}, restart 1)`,
    ]);

    const killedAt = Date.now();
    process.kill(second, 'SIGKILL');
    await until('the second restart', () => sup!.restarts === 2 && sup!.pids()[0] !== undefined);
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(190); // 200 ms: doubled
    expect(said[2]).toMatch(/restarting it in 0\.2 s$/);
  });

  it('restarts nothing once stopped: the user stopping the workers is not a death', async () => {
    const said: string[] = [];
    sup = new WorkerSupervisor(2, { spawn: sleeper, say: (l) => said.push(l), firstBackoffMs: 50 });
    const pids = sup.pids();
    await sup.stop();
    await new Promise((r) => setTimeout(r, 200));
    expect(pids.map(alive)).toEqual([false, false]);
    expect(sup.restarts).toBe(0);
    expect(said).toEqual([]);
  });
});
