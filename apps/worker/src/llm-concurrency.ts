import { LlmCallPace, type ConcurrencyBounds, type LlmCallObservation, type ModelCallers, type ModelPace } from '@sqlsweep/llm';

/** Auto concurrency's floor (and its value until the first calls are seen): the fixed default it replaced. */
export const AUTO_MIN_LLM_CONCURRENCY = 16;
/** Little's law gives the mean in flight; the spread of latencies and a few calls ready at the budget need more. */
export const AUTO_LLM_HEADROOM = 1.5;

export interface LlmConcurrencyOptions {
  pace?: LlmCallPace;
  /** The processes sharing each model's limits (Redis); without it this process assumes it is alone. */
  callers?: ModelCallers;
  bounds: ConcurrencyBounds;
  /** Applies a new concurrency (WorkerHost.setConcurrency of the stage-llm queue). */
  apply: (concurrency: number) => void;
  /** How often the concurrency is recomputed (default 1 s). */
  tickMs?: number;
  log?: (obj: Record<string, unknown>, msg: string) => void;
}

/**
 * The worker's adaptive LLM concurrency (SQLSWEEP_LLM_CONCURRENCY=auto): the jobs of the stage-llm queue are timed,
 * the LLM client's answered calls observed, and every tick the queue's concurrency is set to what keeps the models'
 * limits busy (LlmCallPace: admitted calls per second, this process's share, x hold time per call), so that the
 * shared rate budget, not a fixed number of slots, bounds the calls.
 */
export class AdaptiveLlmConcurrency {
  readonly pace: LlmCallPace;
  private timer?: NodeJS.Timeout;
  private current: number;
  private readonly models = new Set<string>();
  private ticking = false;

  constructor(private readonly opts: LlmConcurrencyOptions) {
    this.pace = opts.pace ?? new LlmCallPace();
    this.current = opts.bounds.min;
  }

  get concurrency(): number {
    return this.current;
  }

  /** Feed of the LLM client's `onCall`. */
  readonly observeCall = (o: LlmCallObservation): void => this.pace.observeCall(o);

  /** Wraps a stage job handler so its jobs' durations count toward the hold time of their model. */
  timed<P extends { params?: Record<string, unknown> }, R extends unknown[]>(handler: (p: P, ...rest: R) => Promise<void>): (p: P, ...rest: R) => Promise<void> {
    return async (p, ...rest) => {
      const started = performance.now();
      try {
        await handler(p, ...rest);
      } finally {
        const model = p.params?.model;
        if (typeof model === 'string') this.pace.observeJob(model, performance.now() - started);
      }
    };
  }

  start(): void {
    this.opts.apply(this.current);
    this.timer = setInterval(() => void this.tick().catch((e: Error) => this.opts.log?.({ err: e.message }, 'llm concurrency: tick failed (kept as it was)')), this.opts.tickMs ?? 1_000);
    this.timer.unref();
  }

  /** Recomputes and applies the concurrency; returns it with the models' figures. */
  async tick(): Promise<{ concurrency: number; models: ModelPace[] }> {
    if (this.ticking) return { concurrency: this.current, models: [] };
    this.ticking = true;
    try {
      const active = this.pace.activeModels();
      for (const m of active) this.models.add(m);
      const sharers = this.opts.callers && active.length ? await this.opts.callers.heartbeat(active) : new Map<string, number>();
      const next = this.pace.concurrency(this.opts.bounds, sharers);
      if (next.concurrency !== this.current) {
        this.opts.log?.({ from: this.current, to: next.concurrency, models: next.models.map((m) => ({ ...m, sharers: sharers.get(m.model) ?? 1 })) }, 'llm concurrency changed');
        this.current = next.concurrency;
        this.opts.apply(this.current);
      }
      return next;
    } finally {
      this.ticking = false;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.opts.callers && this.models.size) await this.opts.callers.leave([...this.models]).catch(() => undefined);
  }
}
