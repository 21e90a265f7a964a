import type { BudgetLimits } from './rate-accounting';

/** One call a provider answered, as the shared budget saw it. */
export interface LlmCallObservation {
  model: string;
  /** The limits the budget admitted it under. */
  limits: BudgetLimits;
  /** What it cost the (single or input) token limit and the output limit, as settled with the reported usage. */
  inputTokens: number;
  outputTokens: number;
  /** Time spent waiting for the budget to admit it. */
  waitedMs: number;
  /** Time the provider took to answer. */
  latencyMs: number;
}

export interface ConcurrencyBounds {
  /** The fewest jobs held at once (also the value before any call was seen). */
  min: number;
  max: number;
  /** Factor over Little's law: covers latency spread and the calls waiting at the budget, ready to go. */
  headroom: number;
}

export interface ModelPace {
  model: string;
  /** Calls per second the model's limits admit at the calls' mean charge, this process's share of them. */
  admittedPerSecond: number;
  /** Calls per second answered here over the window. */
  answeredPerSecond: number;
  meanLatencyMs: number;
  /**
   * Milliseconds a job slot is held per call, not counting the wait for the budget: the call's mean latency plus the
   * job's own time around it (median job minus median budget wait and call, so a cold start's slow first jobs do not
   * count; at most half the latency), per call.
   */
  holdMsPerCall: number;
  /** Little's law: admittedPerSecond x holdMsPerCall, no more than the model's concurrency limit (this share of it). */
  inFlight: number;
}

/** The most time around a call (load, commit) counted toward a job's hold, as a share of the call's latency. */
const MAX_AROUND_CALL = 0.5;

/** The share of a budget's limits it leaves unused (RedisRateBudget's default headroom). */
const BUDGET_HEADROOM = 0.02;

/**
 * Calls per second a model's limits admit for calls of the given mean charge: the binding one of its request limit,
 * its (single or input) token limit and its output token limit, less the budget's headroom.
 */
export function admittedCallsPerSecond(limits: BudgetLimits, meanCharge: { inputTokens: number; outputTokens: number }, headroom = BUDGET_HEADROOM): number {
  const perMinute = Math.min(
    limits.rpm,
    meanCharge.inputTokens > 0 ? limits.inputTpm / meanCharge.inputTokens : Infinity,
    meanCharge.outputTokens > 0 ? limits.outputTpm / meanCharge.outputTokens : Infinity,
  );
  return (perMinute * (1 - headroom)) / 60;
}

interface Bucket { second: number; calls: number; inputTokens: number; outputTokens: number; waitedMs: number; latencyMs: number; callMs: number[]; jobMs: number[] }

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One model's calls and jobs in one-second buckets over the window. */
class ModelWindow {
  limits?: BudgetLimits;
  private readonly buckets: Bucket[] = [];

  constructor(private readonly windowS: number) {}

  private bucket(now: number): Bucket {
    const second = Math.floor(now / 1000);
    let last = this.buckets.at(-1);
    if (!last || last.second !== second) {
      last = { second, calls: 0, inputTokens: 0, outputTokens: 0, waitedMs: 0, latencyMs: 0, callMs: [], jobMs: [] };
      this.buckets.push(last);
    }
    this.prune(now);
    return last;
  }

  prune(now: number): void {
    const oldest = Math.floor(now / 1000) - this.windowS;
    while (this.buckets.length && this.buckets[0].second <= oldest) this.buckets.shift();
  }

  call(o: LlmCallObservation, now: number): void {
    this.limits = o.limits;
    const b = this.bucket(now);
    b.calls++;
    b.inputTokens += o.inputTokens;
    b.outputTokens += o.outputTokens;
    b.waitedMs += o.waitedMs;
    b.latencyMs += o.latencyMs;
    b.callMs.push(o.waitedMs + o.latencyMs);
  }

  job(durationMs: number, now: number): void {
    const b = this.bucket(now);
    b.jobMs.push(durationMs);
  }

  sums(now: number): { calls: number; inputTokens: number; outputTokens: number; waitedMs: number; latencyMs: number; jobs: number; spanS: number; medianJobMs: number; medianCallMs: number } {
    this.prune(now);
    const s = { calls: 0, inputTokens: 0, outputTokens: 0, waitedMs: 0, latencyMs: 0 };
    for (const b of this.buckets) for (const k of Object.keys(s) as (keyof typeof s)[]) s[k] += b[k];
    const jobMs = this.buckets.flatMap((b) => b.jobMs);
    const first = this.buckets[0]?.second ?? Math.floor(now / 1000);
    return {
      ...s, jobs: jobMs.length, spanS: Math.max(1, now / 1000 - first),
      medianJobMs: median(jobMs), medianCallMs: median(this.buckets.flatMap((b) => b.callMs)),
    };
  }
}

/**
 * How many LLM jobs a process should hold at once to keep its models' limits busy, by Little's law: the calls per
 * second the shared budget admits (the binding limit at the calls' observed mean charge, divided among the processes
 * calling the model) times the time a job holds its slot per call (observed, the budget wait left out: waiting for
 * the budget is the limit binding, not a reason for more jobs). Latency rises, the concurrency rises with it; the
 * limit, not a fixed concurrency, bounds the calls.
 */
export class LlmCallPace {
  private readonly windows = new Map<string, ModelWindow>();
  private readonly windowS: number;
  private readonly now: () => number;

  constructor(opts: { windowMs?: number; now?: () => number } = {}) {
    this.windowS = Math.max(1, Math.round((opts.windowMs ?? 30_000) / 1000));
    this.now = opts.now ?? Date.now;
  }

  private window(model: string): ModelWindow {
    let w = this.windows.get(model);
    if (!w) {
      w = new ModelWindow(this.windowS);
      this.windows.set(model, w);
    }
    return w;
  }

  /** A call the provider answered (feed it LlmClient's `onCall`). */
  observeCall(o: LlmCallObservation): void {
    this.window(o.model).call(o, this.now());
  }

  /** A job of the model that held a slot for `durationMs` (budget wait, call, load and commit), whether it called or not. */
  observeJob(model: string, durationMs: number): void {
    this.window(model).job(durationMs, this.now());
  }

  /** The models with calls in the window. */
  activeModels(): string[] {
    const now = this.now();
    return [...this.windows].filter(([, w]) => w.sums(now).calls > 0).map(([m]) => m);
  }

  /** The model's pace over the window, for this process's share (`sharers` processes calling it); undefined without calls. */
  pace(model: string, sharers = 1): ModelPace | undefined {
    const w = this.windows.get(model);
    const now = this.now();
    const s = w?.sums(now);
    if (!w?.limits || !s || s.calls === 0) return undefined;
    const share = Math.max(1, sharers);
    const admittedPerSecond = admittedCallsPerSecond(w.limits, { inputTokens: s.inputTokens / s.calls, outputTokens: s.outputTokens / s.calls }) / share;
    const meanLatencyMs = s.latencyMs / s.calls;
    // At most half the call's latency: time around the call beyond that is jobs queueing for something this process
    // shares (CPU, database connections), which more jobs would only lengthen: sized on it, concurrency would feed itself.
    const aroundCallMs = s.jobs > 0 ? Math.min(meanLatencyMs * MAX_AROUND_CALL, Math.max(0, s.medianJobMs - s.medianCallMs)) : 0;
    const holdMsPerCall = meanLatencyMs + (aroundCallMs * Math.max(s.jobs, s.calls)) / s.calls;
    const inFlight = Math.min(w.limits.concurrency / share, (admittedPerSecond * holdMsPerCall) / 1000);
    return { model, admittedPerSecond, answeredPerSecond: s.calls / s.spanS, meanLatencyMs, holdMsPerCall, inFlight };
  }

  /** Jobs to hold at once: the models' Little's-law figures summed, times the headroom, within the bounds. */
  concurrency(bounds: ConcurrencyBounds, sharers: ReadonlyMap<string, number> = new Map()): { concurrency: number; models: ModelPace[] } {
    // pace() is undefined for a model without calls in the window: the active models, each window summed once.
    const models = [...this.windows.keys()].map((m) => this.pace(m, sharers.get(m) ?? 1)).filter((p): p is ModelPace => !!p);
    const needed = Math.ceil(models.reduce((n, p) => n + p.inFlight, 0) * bounds.headroom);
    return { concurrency: Math.max(bounds.min, Math.min(bounds.max, needed)), models };
  }
}
