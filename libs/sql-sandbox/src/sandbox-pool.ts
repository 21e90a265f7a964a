import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { ChildLimits, ChildMessage, ChildRequest } from './child-protocol';
import type { ExecuteRequest, TimedExecutionResult } from './execution-result';

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
}

interface Job {
  req: ChildRequest;
  deadlineMs: number;
  resolve: (r: TimedExecutionResult) => void;
  reject: (err: Error) => void;
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
  killedFor?: 'timeout' | 'memory';
  /** The last bytes the child wrote to stderr, quoted when it dies unexpectedly. */
  stderrTail: string;
  killSentAt?: bigint;
}

const CHILD_ENTRY = join(__dirname, 'sandbox-child');
const MEMORY_POLL_MS = 20;
const MAX_START_FAILURES = 3;
const STDERR_TAIL_CHARS = 2000;
const PAGE_SIZE = 4096;

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

/** A pool of child processes that run untrusted SQL read-only, one query per child at a time. */
export class SandboxPool {
  private readonly limits: ChildLimits;
  private readonly size: number;
  private readonly defaultDeadlineMs: number;
  private readonly slots: Slot[] = [];
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
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn());
    this.useStandby = opts.standby ?? true;
    if (this.useStandby) this.standby = this.spawn();
  }

  execute(req: ExecuteRequest): Promise<TimedExecutionResult> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new Error('SandboxPool is closed'));
    return new Promise((resolve, reject) => {
      const job: Job = {
        req: { id: this.nextId++, dbPath: req.dbPath, sql: req.sql, repeat: Math.max(1, req.repeat ?? 1) },
        deadlineMs: req.deadlineMs ?? this.defaultDeadlineMs,
        resolve,
        reject,
      };
      this.queue.push(job);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      job.resolve({ status: 'error', errorKind: 'runtime', message: 'sandbox pool closed', elapsedMs: 0 });
    }
    const children = [...this.slots, ...(this.standby ? [this.standby] : []), ...this.dying];
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
    const isTs = __filename.endsWith('.ts');
    const child = fork(`${CHILD_ENTRY}${isTs ? '.ts' : '.js'}`, [JSON.stringify(this.limits), String(process.pid)], {
      execArgv: [...(isTs ? ['-r', require.resolve('@swc-node/register')] : []), `--max-old-space-size=${this.limits.heapMb}`],
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
      clearTimeout(slot.timer);
      clearInterval(slot.memoryWatch);
      const job = slot.job;
      slot.job = undefined;
      job.resolve(msg.result);
    }
    this.dispatch();
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    clearTimeout(slot.timer);
    clearInterval(slot.memoryWatch);
    if (this.dying.delete(slot)) {
      if (slot.killSentAt !== undefined) this.reapLatenciesMs.push(Number(process.hrtime.bigint() - slot.killSentAt) / 1e6);
      return;
    }
    const job = slot.job;
    slot.job = undefined;
    if (job && slot.startedAt !== undefined) {
      const elapsedMs = Number(process.hrtime.bigint() - slot.startedAt) / 1e6;
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      const said = lastLine(slot.stderrTail);
      job.resolve({ status: 'error', errorKind: 'runtime', message: `sandbox process died (${how})${said ? `: ${said}` : ''}`, elapsedMs });
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

  /** Puts the standby (or a fresh child) in the place of a dead or killed one. */
  private replace(slot: Slot): void {
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
    for (const s of [...this.slots, ...(this.standby ? [this.standby] : [])]) s.child.kill('SIGKILL');
    this.closed = true;
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
  private kill(slot: Slot, why: 'timeout' | 'memory'): void {
    if (slot.killedFor) return;
    clearTimeout(slot.timer);
    clearInterval(slot.memoryWatch);
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
        job.resolve({ status: 'timeout', elapsedMs });
      } else {
        job.resolve({ status: 'error', errorKind: 'runtime', message: `memory limit of ${this.limits.heapMb} MiB exceeded`, elapsedMs });
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
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.job) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.startedAt = process.hrtime.bigint();
      slot.killedFor = undefined;
      this.armDeadline(slot, job.deadlineMs);
      slot.memoryWatch = setInterval(() => {
        const rss = residentBytes(slot.child.pid);
        if (rss !== undefined && rss > this.limits.heapMb * 1024 * 1024) this.kill(slot, 'memory');
      }, MEMORY_POLL_MS);
      slot.child.send(job.req);
    }
  }
}
