import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, getPriority, setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv, sandboxChildEntry } from './child-entry';
import type { ChildLimits, ChildMessage, ChildRequest } from './child-protocol';
import type { ExecuteRequest, TimedExecutionResult } from './execution-result';
import { copyResult, executionKey, isDeterministicSql, isLasting, ResultMemo } from './result-memo';

export interface SandboxPoolOptions {
  /** Number of child processes (default: number of cores). */
  size?: number;
  /** Default per-query deadline; past it the child is SIGKILLed and replaced (default 30 000 ms, BIRD's). */
  deadlineMs?: number;
  /** Rows kept per result; more rows set `truncated` (default 100 000). */
  maxRows?: number;
  /** Approximate encoded bytes kept per result; more set `truncated` (default 64 MiB). */
  maxResultBytes?: number;
  /**
   * Memory limit of each child, MiB (default 512): V8's old-space limit, and, on Linux, a watchdog that SIGKILLs a
   * child whose resident set grows past it (SQLite's own allocations, e.g. randomblob, are outside V8's heap).
   */
  heapMb?: number;
  /** Longer SQL text is refused by the gate (default 100 000 characters). */
  maxSqlLength?: number;
  /** Keep one idle child started so a killed child is replaced at once (default true). */
  standby?: boolean;
  /**
   * A busy child counts as slow once its query has run this long (default 200 ms). While requests wait and every
   * child is busy, each slow child lets the pool start one extra child for the waiting requests. A slow query (not a
   * timing one, `repeat` > 1) also runs at a lower scheduling priority (nice + 10) until it ends.
   */
  slowAfterMs?: number;
  /** Most extra children alive at once (default `size * 2`; 0: never more than `size`). */
  maxExtra?: number;
  /** An extra child idle this long is stopped (default 15 000 ms). */
  extraIdleMs?: number;
  /** Most recent results kept to answer identical requests without running them (default 2 000; 0: none kept). */
  memoEntries?: number;
  /** Most approximate bytes of kept results, over all of them (default 32 MiB). */
  memoBytes?: number;
  /**
   * How long a timeout is kept (default 10 minutes): it depends on the machine's load as well as on the query, so a
   * later sweep served by the same worker process tries again. Other results are kept until evicted.
   */
  memoTimeoutMs?: number;
  /**
   * How long a timing (`repeat` > 1) of deterministic SQL answers an identical timing request (same database file,
   * SQL, deadline and repeat count) instead of running again (default 0: every timing runs, as the official VES
   * script times each pair afresh). A sweep's evaluate stages time the same gold query, and often the same
   * prediction, once per variant that got the item right: the workers reuse a timing for a few minutes.
   */
  timingReuseMs?: number;
  /**
   * Queries shared with other processes (workers on one data directory): a query (`repeat` 1) still running after
   * `slowAfterMs` is claimed there; if another process holds it already, this one stops its own run and takes that
   * process's result when it lands (or runs the query again if the claim lapses without one). See SharedExecutions.
   */
  shared?: SharedExecutions;
}

/**
 * Where processes that run the same slow queries meet (Redis in the workers). Keys are `executionKey`s (same file by
 * device and inode, same SQL and deadline), so only processes reading the same replica file share.
 */
export interface SharedExecutions {
  /**
   * The result another process stored for `key`; else whether this process now holds `key` for `ttlMs` (nobody else
   * holds it live). A holder that dies lets its claim lapse.
   */
  lookupOrClaim(key: string, ttlMs: number): Promise<{ result?: TimedExecutionResult; claimed: boolean; unshared?: boolean }>;
  /**
   * Stores `result` for `ttlMs`, or without one (a verdict that cannot be shared) a mark that says so, for which
   * `lookupOrClaim` answers `unshared`; then releases this process's claim on `key`.
   */
  putAndRelease(key: string, result: TimedExecutionResult | undefined, ttlMs: number): Promise<void>;
}

/** A result, and whether it belongs to the query (answered by the child, or its deadline) rather than to the pool. */
interface Outcome {
  result: TimedExecutionResult;
  ownVerdict: boolean;
}

interface Job {
  req: ChildRequest;
  deadlineMs: number;
  resolve: (o: Outcome) => void;
  reject: (err: Error) => void;
  /** Called when a child starts running it. */
  onStart?: () => void;
}

interface Slot {
  child: ChildProcess;
  /** Set when the slot's child took the place of a dead one: the time of that death. */
  replacingSince?: bigint;
  ready: boolean;
  /** Whether the child ever reported ready (a child that dies before is a start-up failure). */
  started: boolean;
  job?: Job;
  startedAt?: bigint;
  timer?: NodeJS.Timeout;
  memoryWatch?: NodeJS.Timeout;
  killedFor?: 'timeout' | 'memory' | 'cancelled';
  /** The last bytes the child wrote to stderr, quoted when it dies unexpectedly. */
  stderrTail: string;
  killSentAt?: bigint;
  /** Started beyond `size` for requests waiting behind slow queries; stopped once idle. */
  extra?: boolean;
  idleTimer?: NodeJS.Timeout;
  /** Fires when the job has run `slowAfterMs`; `slow` is set from then until the job ends. */
  slowTimer?: NodeJS.Timeout;
  slow?: boolean;
  /** The child runs SLOW_NICE_STEP below the pool's own priority while its slow query lasts. */
  niced?: boolean;
}

const MEMORY_POLL_MS = 20;
const MAX_START_FAILURES = 3;
const STDERR_TAIL_CHARS = 2000;
const PAGE_SIZE = 4096;
const SLOW_AFTER_MS = 200;
/** How much lower a child's scheduling priority is while a slow query runs: quick queries and starting children go first. */
const SLOW_NICE_STEP = 10;
/**
 * An extra child costs a fork and a Node start (tens of CPU milliseconds); in a sweep slow queries come back every
 * few seconds, and extras stopped after a second's idleness were started again and again.
 */
const EXTRA_IDLE_MS = 15_000;
const MEMO_ENTRIES = 2_000;
const MEMO_BYTES = 32 * 1024 * 1024;
const MEMO_TIMEOUT_MS = 10 * 60_000;
/** A shared claim outlives its holder's deadline by this much: a live holder always stores or releases first. */
const SHARED_CLAIM_SLACK_MS = 5_000;
/** How often a process waiting for another's result looks again. */
const SHARED_POLL_MS = 200;
/** How long a shared result is kept for other processes. */
const SHARED_RESULT_TTL_MS = 10 * 60_000;
const poolClosed = (): Outcome => ({ result: { status: 'error', errorKind: 'runtime', message: 'sandbox pool closed', elapsedMs: 0 }, ownVerdict: false });
/** A request dropped because another process runs its query (`shared`): not the query's verdict. */
const cancelled = (elapsedMs: number): Outcome => ({
  result: { status: 'error', errorKind: 'runtime', message: 'cancelled: another process runs this query', elapsedMs }, ownVerdict: false,
});

/** Resident set size of a process in bytes, or undefined where /proc is not available. */
function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_SIZE;
  } catch {
    return undefined;
  }
}

const lastLine = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !/^[#<]/.test(l))
    .pop() ?? '';

/**
 * A pool of child processes that run untrusted SQL read-only, one query per child at a time. Requests wait behind
 * slow queries at most about `slowAfterMs` (extra children, bounded by `maxExtra`), and an identical request
 * (`repeat` 1, or a timing with `timingReuseMs`) runs once: it joins the one in flight or is answered from a bounded
 * memo of recent results.
 */
export class SandboxPool {
  private readonly limits: ChildLimits;
  private readonly size: number;
  private readonly defaultDeadlineMs: number;
  private readonly slowAfterMs: number;
  private readonly maxExtra: number;
  private readonly extraIdleMs: number;
  private readonly slots: Slot[] = [];
  private readonly extras: Slot[] = [];
  /** Idle extras stopped, not yet reported gone. */
  private readonly retiring = new Set<Slot>();
  private readonly memo: ResultMemo;
  private readonly memoTimeoutMs: number;
  private readonly timingReuseMs: number;
  private readonly shared?: SharedExecutions;
  /** The nice value children start with (the pool's own). */
  private readonly baseNice = getPriority();
  /**
   * Set once a child could not get its priority back: an unprivileged process (the image's USER node, without
   * CAP_SYS_NICE and with RLIMIT_NICE 0) may lower a priority but never raise it again. Slow queries then keep their
   * priority rather than cost a child each.
   */
  private reniceRefused = false;
  private readonly inFlight = new Map<string, Promise<TimedExecutionResult>>();
  /** Queries sent to children (memo hits and requests that joined one in flight are not counted). */
  executions = 0;
  /** Requests answered from the memo of recent results. */
  memoHits = 0;
  /** Requests that joined an identical one in flight. */
  sharedHits = 0;
  /** Slow requests answered by another process's run of the same query (`shared`). */
  crossProcessHits = 0;
  /** Extra children started, and stopped once idle; the most alive at once. */
  extrasStarted = 0;
  extrasRetired = 0;
  peakExtras = 0;
  private standby?: Slot;
  private readonly useStandby: boolean;
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private startFailures = 0;
  /** Set when children keep dying before they are ready (broken install): the pool then refuses work. */
  private broken?: Error;
  /** Times from deadline to SIGKILL sent and the caller's timeout verdict, for the benchmark. */
  readonly killLatenciesMs: number[] = [];
  /** Times from SIGKILL to the kernel reporting the child gone. */
  readonly reapLatenciesMs: number[] = [];
  /** Killed children not yet reaped. */
  private readonly dying = new Set<Slot>();
  /** Times from a killed child's exit to its replacement being ready to serve. */
  readonly replaceLatenciesMs: number[] = [];

  constructor(opts: SandboxPoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? cpus().length);
    this.defaultDeadlineMs = opts.deadlineMs ?? 30_000;
    this.limits = {
      maxRows: opts.maxRows ?? 100_000,
      maxResultBytes: opts.maxResultBytes ?? 64 * 1024 * 1024,
      heapMb: opts.heapMb ?? 512,
      maxSqlLength: opts.maxSqlLength ?? 100_000,
    };
    this.slowAfterMs = opts.slowAfterMs ?? SLOW_AFTER_MS;
    this.maxExtra = Math.max(0, opts.maxExtra ?? this.size * 2);
    this.extraIdleMs = opts.extraIdleMs ?? EXTRA_IDLE_MS;
    this.memoTimeoutMs = opts.memoTimeoutMs ?? MEMO_TIMEOUT_MS;
    this.timingReuseMs = Math.max(0, opts.timingReuseMs ?? 0);
    this.shared = opts.shared;
    this.memo = new ResultMemo({ maxEntries: opts.memoEntries ?? MEMO_ENTRIES, maxBytes: opts.memoBytes ?? MEMO_BYTES });
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn());
    this.useStandby = opts.standby ?? true;
    if (this.useStandby) this.standby = this.spawn();
  }

  /**
   * Runs one query. With `repeat` 1 (or none), a request identical to one in flight or recently answered (same
   * database file, SQL and deadline; see `executionKey`) is not run again: it gets a copy of that result, with the
   * `elapsedMs` of the run that produced it (the query's time, not this request's wait). Kept: what the child
   * answered (rows, errors) and, for `memoTimeoutMs`, timeouts (the same query under the same deadline gets the same
   * verdict instead of holding a child for the whole deadline again); not kept: the pool's own errors (a child that
   * died, or was killed for memory, or a closed pool) and transient SQLite errors (`isLasting`: a database that could
   * not be opened, locks, memory, I/O). `repeat` > 1 is a timing measurement: run every time unless
   * `timingReuseMs` is set, then shared and kept as above for that long (the timings with the rest). SQL that is not
   * deterministic (`isDeterministicSql`: random(), the clock) always runs, never shared.
   */
  execute(req: ExecuteRequest): Promise<TimedExecutionResult> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new Error('SandboxPool is closed'));
    const repeat = Math.max(1, req.repeat ?? 1);
    const deadlineMs = req.deadlineMs ?? this.defaultDeadlineMs;
    // A query reading the clock or random() may answer differently each run: it always runs (an evaluation that ran
    // every query would not give two stages, or gold and an identical prediction, one shared draw).
    const shareable = (repeat === 1 || this.timingReuseMs > 0) && isDeterministicSql(req.sql);
    const file = shareable ? executionKey(req.dbPath, req.sql, deadlineMs) : undefined;
    const key = file === undefined || repeat === 1 ? file : `${repeat}\u0000${file}`;
    if (key === undefined) return this.run(req, repeat, deadlineMs).then((o) => o.result);
    const kept = this.memo.get(key);
    if (kept) {
      this.memoHits++;
      return Promise.resolve(copyResult(kept));
    }
    const running = this.inFlight.get(key);
    if (running) {
      this.sharedHits++;
      return running.then(copyResult);
    }
    const first = this.shared && repeat === 1 ? this.runShared(this.shared, req, key, deadlineMs) : this.run(req, repeat, deadlineMs);
    // The memo and later requests get a copy taken before the first caller sees (and may change) its result.
    const copied = first
      .then((o) => {
        const copy = copyResult(o.result);
        const ttlMs = repeat > 1 ? this.timingReuseMs : copy.status === 'timeout' ? this.memoTimeoutMs : Infinity;
        if (o.ownVerdict && isLasting(copy)) this.memo.set(key, copy, ttlMs);
        return copy;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, copied);
    return copied.then(() => first).then((o) => o.result);
  }

  private run(req: ExecuteRequest, repeat: number, deadlineMs: number): Promise<Outcome> {
    return this.submit(req, repeat, deadlineMs).outcome;
  }

  /** Queues a request; `started` resolves when a child starts running it. A closed or broken pool settles it at once. */
  private submit(req: ExecuteRequest, repeat: number, deadlineMs: number): { job: Job; outcome: Promise<Outcome>; started: Promise<void> } {
    let job!: Job;
    let onStart!: () => void;
    const started = new Promise<void>((resolve) => (onStart = resolve));
    const outcome = new Promise<Outcome>((resolve, reject) => {
      job = { req: { id: this.nextId++, dbPath: req.dbPath, sql: req.sql, repeat }, deadlineMs, resolve, reject, onStart };
    });
    if (this.broken) job.reject(this.broken);
    else if (this.closed) job.resolve(poolClosed());
    else {
      this.queue.push(job);
      this.dispatch();
    }
    return { job, outcome, started };
  }

  /**
   * Runs the query here; once it has run `slowAfterMs`, meets other processes running it (`shared`): the first to claim
   * it runs it and stores its verdict for the others, who stop their own run and wait for that verdict. A verdict the
   * holder could not share (too large, or the pool's own error) sends every waiter to run the query itself. A store
   * that fails leaves the query to run here.
   */
  private async runShared(shared: SharedExecutions, req: ExecuteRequest, key: string, deadlineMs: number): Promise<Outcome> {
    // The claim outlives the deadline of a run already started: a live holder stores or releases before it lapses.
    const ttlMs = deadlineMs + SHARED_CLAIM_SLACK_MS;
    const local = this.submit(req, 1, deadlineMs);
    let localDone: Outcome | undefined;
    void local.outcome.then((o) => (localDone = o), () => undefined);
    const slow = local.started.then(() => sleep(this.slowAfterMs, undefined, { ref: false }));
    if (await Promise.race([local.outcome.then(() => true), slow.then(() => false)])) return local.outcome;
    const runHere = async (run: ReturnType<SandboxPool['submit']>, renew: boolean): Promise<Outcome> => {
      let result: TimedExecutionResult | undefined;
      try {
        // Claimed before this run started: the claim is renewed from its start.
        if (renew) await run.started.then(() => shared.lookupOrClaim(key, ttlMs)).catch(() => undefined);
        const o = await run.outcome;
        if (o.ownVerdict && isLasting(o.result)) result = o.result;
        return o;
      } finally {
        await shared.putAndRelease(key, result, SHARED_RESULT_TTL_MS).catch(() => undefined);
      }
    };
    let seen = await shared.lookupOrClaim(key, ttlMs).catch(() => undefined);
    if (!seen || seen.unshared) return local.outcome;
    if (seen.claimed) return runHere(local, false);
    if (localDone) return localDone;
    this.cancel(local.job);
    for (;;) {
      if (seen.result) {
        this.crossProcessHits++;
        return { result: seen.result, ownVerdict: true };
      }
      if (seen.claimed) return runHere(this.submit(req, 1, deadlineMs), true);
      await sleep(SHARED_POLL_MS, undefined, { ref: false });
      if (this.closed) return poolClosed();
      seen = await shared.lookupOrClaim(key, ttlMs).catch(() => undefined);
      if (!seen || seen.unshared) return this.run(req, 1, deadlineMs);
    }
  }

  /** Drops a request another process answers: out of the queue, or its child killed (and replaced). */
  private cancel(job: Job): void {
    const waiting = this.queue.indexOf(job);
    if (waiting >= 0) this.queue.splice(waiting, 1);
    const slot = [...this.slots, ...this.extras].find((s) => s.job === job);
    if (slot) this.kill(slot, 'cancelled');
    job.resolve(cancelled(0)); // a no-op where the kill answered it already
  }

  /** Extra children alive now. */
  get extraChildren(): number {
    return this.extras.length;
  }

  /** Results kept to answer identical requests, and their approximate size in bytes. */
  get memoStats(): { entries: number; bytes: number; evictions: number } {
    return { entries: this.memo.size, bytes: this.memo.bytes, evictions: this.memo.evictions };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopTimers();
    this.memo.clear();
    for (const job of this.queue.splice(0)) {
      job.resolve({ result: { status: 'error', errorKind: 'runtime', message: 'sandbox pool closed', elapsedMs: 0 }, ownVerdict: false });
    }
    const children = [...this.slots, ...this.extras, ...(this.standby ? [this.standby] : []), ...this.dying, ...this.retiring];
    await Promise.all(
      children.map(
        (slot) =>
          new Promise<void>((done) => {
            if (slot.child.exitCode !== null || slot.child.signalCode !== null) return done();
            slot.child.once('exit', () => done());
            slot.child.kill('SIGKILL');
          }),
      ),
    );
  }

  /** Resolves once every child is up (queries sent earlier simply wait in the queue). */
  async ready(): Promise<void> {
    const all = (): Slot[] => (this.standby ? [...this.slots, this.standby] : this.slots);
    while (all().some((s) => !s.ready)) await new Promise((r) => setTimeout(r, 10));
  }

  private spawn(): Slot {
    const entry = sandboxChildEntry('sandbox-child');
    const child = fork(entry.modulePath, [JSON.stringify(this.limits), String(process.pid)], {
      execArgv: [...entry.execArgv, `--max-old-space-size=${this.limits.heapMb}`],
      env: childEnv(entry),
      // stderr is kept, not inherited: a dying child's output must not look like the parent's own.
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const slot: Slot = { child, ready: false, started: false, stderrTail: '' };
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      slot.stderrTail = (slot.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    child.on('message', (msg: ChildMessage) => this.onMessage(slot, msg));
    child.on('exit', (code, signal) => this.onExit(slot, code, signal));
    child.on('error', () => undefined); // 'exit' follows and does the clean-up
    return slot;
  }

  private onMessage(slot: Slot, msg: ChildMessage): void {
    if (msg.type === 'ready') {
      slot.ready = true;
      slot.started = true;
      this.startFailures = 0;
      this.noteReplaced(slot);
    } else if (slot.job && slot.job.req.id === msg.id && !slot.killedFor) {
      this.stopJobTimers(slot);
      const job = slot.job;
      slot.job = undefined;
      job.resolve({ result: msg.result, ownVerdict: true });
      if (slot.niced && !this.restorePriority(slot)) this.recycle(slot);
    }
    this.dispatch();
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    this.stopJobTimers(slot);
    if (this.dying.delete(slot)) {
      if (slot.killSentAt !== undefined) this.reapLatenciesMs.push(Number(process.hrtime.bigint() - slot.killSentAt) / 1e6);
      return;
    }
    if (this.retiring.delete(slot)) return;
    const job = slot.job;
    slot.job = undefined;
    if (job && slot.startedAt !== undefined) {
      const elapsedMs = Number(process.hrtime.bigint() - slot.startedAt) / 1e6;
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      const said = lastLine(slot.stderrTail);
      job.resolve({ result: { status: 'error', errorKind: 'runtime', message: `sandbox process died (${how})${said ? `: ${said}` : ''}`, elapsedMs }, ownVerdict: false });
    }
    if (this.closed) return;
    if (!slot.started && ++this.startFailures >= MAX_START_FAILURES) {
      const said = lastLine(slot.stderrTail);
      this.giveUp(
        `sandbox child process keeps dying before it is ready (last: ${signal ? `signal ${signal}` : `exit code ${code}`}` +
          `${said ? `, saying "${said}"` : ''}; is heapMb too small, or does better-sqlite3 fail to load?)`,
      );
      return;
    }
    if (slot === this.standby) {
      this.standby = this.spawn();
      return;
    }
    this.replace(slot);
  }

  /** Puts the standby (or a fresh child) in the place of a dead or killed one; a dead extra is only dropped. */
  private replace(slot: Slot): void {
    if (slot.extra) {
      this.dropExtra(slot);
      this.dispatch();
      return;
    }
    const index = this.slots.indexOf(slot);
    if (index < 0 || this.closed) return;
    const replacement = this.standby ?? this.spawn();
    replacement.replacingSince = process.hrtime.bigint();
    this.slots[index] = replacement;
    this.standby = this.useStandby ? this.spawn() : undefined;
    if (replacement.ready) this.noteReplaced(replacement);
    this.dispatch();
  }

  private giveUp(message: string): void {
    this.broken = new Error(message);
    for (const job of this.queue.splice(0)) job.reject(this.broken);
    for (const s of [...this.slots, ...this.extras, ...(this.standby ? [this.standby] : [])]) s.child.kill('SIGKILL');
    this.closed = true;
    this.stopTimers();
  }

  private noteReplaced(slot: Slot): void {
    if (slot.replacingSince === undefined) return;
    this.replaceLatenciesMs.push(Number(process.hrtime.bigint() - slot.replacingSince) / 1e6);
    slot.replacingSince = undefined;
  }

  /**
   * SIGKILL cannot be caught: once it is sent the query runs no further, so the caller gets its verdict now and the
   * slot its replacement now; the dead child is reaped (and counted) when the kernel reports it gone.
   */
  private kill(slot: Slot, why: 'timeout' | 'memory' | 'cancelled'): void {
    if (slot.killedFor) return;
    this.stopJobTimers(slot);
    slot.killedFor = why;
    slot.ready = false;
    slot.child.kill('SIGKILL');
    slot.killSentAt = process.hrtime.bigint();
    this.dying.add(slot);
    const job = slot.job;
    slot.job = undefined;
    if (job && slot.startedAt !== undefined) {
      const elapsedMs = Number(slot.killSentAt - slot.startedAt) / 1e6;
      if (why === 'timeout') {
        this.killLatenciesMs.push(elapsedMs - job.deadlineMs);
        job.resolve({ result: { status: 'timeout', elapsedMs }, ownVerdict: true });
      } else if (why === 'cancelled') {
        job.resolve(cancelled(elapsedMs));
      } else {
        // Not the query's own verdict: a child's resident set also holds what earlier queries left behind.
        const message = `memory limit of ${this.limits.heapMb} MiB exceeded`;
        job.resolve({ result: { status: 'error', errorKind: 'runtime', message, elapsedMs }, ownVerdict: false });
      }
    }
    this.replace(slot);
  }

  /** Resolves once every killed child has been reaped by the kernel. */
  async reaped(): Promise<void> {
    while (this.dying.size > 0) await new Promise((r) => setTimeout(r, 10));
  }

  /**
   * Kills the slot's child once `deadlineMs` have passed since its job started. A timer may fire up to a millisecond
   * early against the job's own clock (libuv counts from the start of the loop iteration), so it is re-armed for
   * whatever is left: a query always gets its whole deadline.
   */
  private armDeadline(slot: Slot, deadlineMs: number, leftMs = deadlineMs): void {
    slot.timer = setTimeout(() => {
      const left = deadlineMs - Number(process.hrtime.bigint() - slot.startedAt!) / 1e6;
      if (left > 0) this.armDeadline(slot, deadlineMs, left);
      else this.kill(slot, 'timeout');
    }, Math.ceil(leftMs));
  }

  private dispatch(): void {
    if (this.closed) return;
    this.serveQueue();
    if (this.queue.length > 0 && this.growForSlowQueries()) this.serveQueue();
    for (const slot of this.extras) if (slot.ready && !slot.job && !slot.idleTimer) this.armRetire(slot);
  }

  private serveQueue(): void {
    for (const slot of [...this.slots, ...this.extras]) {
      if (this.queue.length === 0) return;
      if (slot.ready && !slot.job) this.start(slot, this.queue.shift()!);
    }
  }

  private start(slot: Slot, job: Job): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.job = job;
    slot.startedAt = process.hrtime.bigint();
    slot.killedFor = undefined;
    job.onStart?.();
    this.armDeadline(slot, job.deadlineMs);
    slot.memoryWatch = setInterval(() => {
      const rss = residentBytes(slot.child.pid);
      if (rss !== undefined && rss > this.limits.heapMb * 1024 * 1024) this.kill(slot, 'memory');
    }, MEMORY_POLL_MS);
    slot.slowTimer = setTimeout(() => this.becameSlow(slot), this.slowAfterMs);
    this.executions++;
    slot.child.send(job.req);
  }

  private becameSlow(slot: Slot): void {
    slot.slowTimer = undefined;
    if (!slot.job || this.closed) return;
    slot.slow = true;
    if (slot.job.req.repeat === 1 && !this.reniceRefused && slot.child.pid !== undefined) {
      try {
        setPriority(slot.child.pid, Math.min(19, this.baseNice + SLOW_NICE_STEP));
        slot.niced = true;
      } catch {
        // the child is gone (its 'exit' follows) or the system refuses: it keeps its priority
      }
    }
    if (this.queue.length > 0) this.dispatch();
  }

  /** Back to the pool's own priority once the slow query ended; false where the system refuses (no CAP_SYS_NICE, or the child is gone). */
  private restorePriority(slot: Slot): boolean {
    try {
      setPriority(slot.child.pid!, this.baseNice);
      slot.niced = false;
      return true;
    } catch (err) {
      // A child gone already (ESRCH) says nothing about the system's permission.
      if ((err as { info?: { code?: string } }).info?.code !== 'ESRCH') this.reniceRefused = true;
      return false;
    }
  }

  /** An idle child that cannot get its priority back is stopped; a regular one is replaced as a dead one would be. */
  private recycle(slot: Slot): void {
    this.retiring.add(slot);
    slot.child.kill('SIGKILL');
    if (this.closed) return; // nothing may start after close(): its children would outlive the pool
    if (slot.extra) {
      this.dropExtra(slot);
      return;
    }
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots[index] = this.standby ?? this.spawn();
    this.standby = this.useStandby ? this.spawn() : undefined;
  }

  private stopJobTimers(slot: Slot): void {
    clearTimeout(slot.timer);
    clearInterval(slot.memoryWatch);
    clearTimeout(slot.slowTimer);
    slot.slowTimer = undefined;
    slot.slow = false;
  }

  /**
   * Every child is busy and requests wait: each child whose query has run past `slowAfterMs` allows one extra child
   * (at most `maxExtra`), so the waiting requests get about as many children as there are cores not held by slow
   * queries. Extras still starting count against the waiting requests.
   */
  private growForSlowQueries(): boolean {
    const slow = [...this.slots, ...this.extras].filter((s) => s.job && s.slow).length;
    let starting = this.extras.filter((s) => !s.ready).length;
    let added = false;
    while (this.extras.length < Math.min(this.maxExtra, slow) && starting < this.queue.length) {
      if (!this.addExtra().ready) starting++;
      added = true;
    }
    return added;
  }

  /** The standby becomes the extra when there is one (and is replaced); else a fresh child is started. */
  private addExtra(): Slot {
    let slot = this.standby;
    if (slot) this.standby = this.spawn();
    else slot = this.spawn();
    slot.extra = true;
    this.extras.push(slot);
    this.extrasStarted++;
    this.peakExtras = Math.max(this.peakExtras, this.extras.length);
    return slot;
  }

  private armRetire(slot: Slot): void {
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = undefined;
      if (slot.job || this.closed || !this.extras.includes(slot)) return;
      this.dropExtra(slot);
      this.retiring.add(slot);
      this.extrasRetired++;
      slot.child.kill('SIGKILL'); // idle, read-only: nothing to lose
    }, this.extraIdleMs);
    slot.idleTimer.unref();
  }

  private dropExtra(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    const i = this.extras.indexOf(slot);
    if (i >= 0) this.extras.splice(i, 1);
  }

  private stopTimers(): void {
    for (const s of this.extras) clearTimeout(s.idleTimer);
    for (const s of [...this.slots, ...this.extras]) clearTimeout(s.slowTimer);
  }
}
