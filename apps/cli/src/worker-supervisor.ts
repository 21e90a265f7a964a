import type { LocalProcess } from './local-processes';

export interface SupervisorOptions {
  /** Starts one process of slot `slot` (0-based). */
  spawn: (slot: number) => LocalProcess;
  /** One line per event an operator should see: a death and its restart. */
  say: (line: string) => void;
  /** Delay before the first restart of a slot, doubled per quick death up to `maxBackoffMs` (defaults 1 s, 30 s). */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** A process that lived this long before dying is restarted after `firstBackoffMs` again (default 60 s). */
  healthyAfterMs?: number;
}

interface Slot { proc: LocalProcess; startedAt: number; backoffMs: number; restarts: number; timer?: NodeJS.Timeout }

/**
 * Keeps `count` processes alive: one that dies (a crash, an out-of-memory kill, `kill -9`) is started again after a
 * backoff that doubles while it keeps dying quickly, and the death and the restart are said. Nothing is restarted
 * once `stop()` is called: the user stopping the workers is not a death.
 */
export class WorkerSupervisor {
  private readonly slots: Slot[] = [];
  private stopping = false;
  private readonly first: number;
  private readonly max: number;
  private readonly healthyAfter: number;

  constructor(count: number, private readonly opts: SupervisorOptions) {
    this.first = opts.firstBackoffMs ?? 1_000;
    this.max = opts.maxBackoffMs ?? 30_000;
    this.healthyAfter = opts.healthyAfterMs ?? 60_000;
    for (let i = 0; i < count; i++) {
      const slot: Slot = { proc: opts.spawn(i), startedAt: Date.now(), backoffMs: this.first, restarts: 0 };
      this.slots.push(slot);
      this.watch(i, slot);
    }
  }

  /** The pids of the processes alive now, by slot. */
  pids(): Array<number | undefined> {
    return this.slots.map((s) => (s.proc.child.exitCode === null && s.proc.child.signalCode === null ? s.proc.child.pid : undefined));
  }

  /** Total restarts so far. */
  get restarts(): number {
    return this.slots.reduce((n, s) => n + s.restarts, 0);
  }

  private watch(index: number, slot: Slot): void {
    const child = slot.proc.child;
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      const lived = Date.now() - slot.startedAt;
      if (lived >= this.healthyAfter) slot.backoffMs = this.first;
      const delay = slot.backoffMs;
      slot.backoffMs = Math.min(this.max, slot.backoffMs * 2);
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.opts.say(`worker ${index + 1} (pid ${child.pid}) ${how} after ${Math.round(lived / 1000)} s; restarting it in ${(delay / 1000).toFixed(1)} s`);
      slot.timer = setTimeout(() => {
        slot.timer = undefined;
        if (this.stopping) return;
        slot.proc = this.opts.spawn(index);
        slot.startedAt = Date.now();
        slot.restarts++;
        this.opts.say(`worker ${index + 1} restarted (pid ${slot.proc.child.pid}, restart ${slot.restarts})`);
        this.watch(index, slot);
      }, delay);
    });
  }

  /** Stops every process (gracefully, as LocalProcess.stop does) and restarts none. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const s of this.slots) if (s.timer) clearTimeout(s.timer);
    await Promise.all(this.slots.map((s) => s.proc.stop()));
  }
}
