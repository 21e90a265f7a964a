import type { RunRepository } from '@sqlsweep/db';
import { RedisLease } from '@sqlsweep/queue';
import type { Advancer } from './advancer';

/** The Redis key of the reconciler's lease for one queue prefix: one reconciler at a time per deployment. */
export const reconcilerLeaseKey = (queuePrefix: string) => `${queuePrefix}:reconciler-lease`;

/** The default time between two passes. */
export const defaultReconcileIntervalMs = 10_000;

export interface ReconcilerOptions {
  redisUrl: string;
  queuePrefix: string;
  /** Time between passes (default `defaultReconcileIntervalMs`). */
  intervalMs?: number;
  /** How long the lease outlives its holder's last renewal (default three intervals, at least 3 s). */
  leaseMs?: number;
  log?: (obj: Record<string, unknown>, msg: string) => void;
}

/** What one pass did: runs it looked at, runs it re-planned (found unmoved since the previous pass), and their outcome. */
export interface ReconcilePass { running: number; rechecked: string[]; enqueued: number; finished: string[]; failed: string[] }

/**
 * Keeps every running run moving, whoever started it: the orchestrator and every worker process run one, and the one
 * holding the Redis lease makes a pass each interval. A pass re-plans (`Advancer.reconcile`) each running run whose
 * progress has not moved since the previous pass: ready stages that Redis lost are queued again (a job still queued
 * or running is left as it is), runs whose work is all settled are closed (`done`), and a run that cannot proceed
 * is marked `failed`. A run that is moving is left alone, so a pass costs one small query while all is well.
 */
export class Reconciler {
  private readonly lease: RedisLease;
  private readonly intervalMs: number;
  private readonly seen = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  private current?: Promise<unknown>;
  private stopped = false;

  constructor(private readonly deps: { runs: RunRepository; advancer: Advancer }, private readonly opts: ReconcilerOptions) {
    this.intervalMs = opts.intervalMs ?? defaultReconcileIntervalMs;
    this.lease = new RedisLease(opts.redisUrl, reconcilerLeaseKey(opts.queuePrefix), opts.leaseMs ?? Math.max(3_000, 3 * this.intervalMs));
  }

  /** Whether this reconciler held the lease at its last tick. */
  get active(): boolean {
    return this.lease.isHeld;
  }

  /** Ticks every interval until `stop`. */
  start(): void {
    const next = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.current = this.tick().catch((e: Error) => this.opts.log?.({ err: e.message }, 'reconciler pass failed; trying again next interval')).finally(next);
      }, this.intervalMs);
      this.timer.unref();
    };
    next();
  }

  /**
   * Takes or renews the lease; when held, makes a pass (renewing the lease while it lasts). Undefined when another
   * process holds the lease.
   */
  async tick(): Promise<ReconcilePass | undefined> {
    if (!(await this.lease.hold())) {
      this.seen.clear(); // a later turn starts afresh: what another holder saw in between is unknown here
      return undefined;
    }
    const renew = setInterval(() => void this.lease.hold(), Math.max(500, Math.floor(this.lease.ttlMs / 3)));
    try {
      return await this.pass();
    } finally {
      clearInterval(renew);
    }
  }

  private async pass(): Promise<ReconcilePass> {
    const running = await this.deps.runs.runningRunProgress();
    const pass: ReconcilePass = { running: running.length, rechecked: [], enqueued: 0, finished: [], failed: [] };
    const previous = new Map(this.seen);
    this.seen.clear();
    for (const { runId, mark } of running) {
      this.seen.set(runId, mark);
      if (previous.get(runId) !== mark || !this.lease.isHeld) continue;
      try {
        const r = await this.deps.advancer.reconcile(runId);
        pass.rechecked.push(runId);
        pass.enqueued += r.enqueued;
        if (r.finished) pass.finished.push(runId);
        if (r.failureReason) pass.failed.push(runId);
        this.opts.log?.({ runId, readyStages: r.enqueued, finished: r.finished, failureReason: r.failureReason },
          'reconciler: the run had not moved since the previous pass; re-checked its ready stages against the queue (re-adding any Redis lost) and closed what had settled');
      } catch (e) {
        this.opts.log?.({ runId, err: (e as Error).message }, 'reconciler: re-planning a run failed; trying again next pass');
      }
    }
    return pass;
  }

  /** Stops ticking, waits for a pass under way, and gives the lease up so another process takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current;
    await this.lease.close();
  }
}
