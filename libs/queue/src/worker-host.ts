import { connectionWarnings, type ThrottledWarnings } from '@sqlsweep/config';
import { UnrecoverableError, Worker, type Job, type MinimalJob } from 'bullmq';
import type { z } from 'zod';
import { createRedisConnection, type RedisClient } from './connection';
import { isFinalFailure } from './final-failure';
import { jobCatalog, jobsOfQueue, queueKeyPrefix, retryDelayMs, type JobDefinition, type JobName, type JobPayload } from './job-catalog';

/** `token` is the job's lock token, needed to move it to delayed from inside the handler. */
export type JobHandler<N extends JobName> = (payload: JobPayload<N>, job: Job, token?: string) => Promise<void>;
export type JobHandlers<N extends JobName> = { [K in N]: JobHandler<K> };

export interface WorkerHostOptions {
  redisUrl: string;
  prefix: string;
  /** queue name -> concurrency */
  queues: Record<string, number>;
  /** The most jobs this host runs at once over all its queues; by default, the sum of the queues' concurrency. */
  maxActive?: number;
  lockDurationMs?: number;
  /** Every failed attempt; `final` (from `isFinalFailure`) when BullMQ will not run the job again. */
  onFailed?: (job: Job, error: Error, final: boolean) => void;
  /** Where the workers' Redis errors are warned about (default: this process's connection warnings on stderr). */
  warnings?: ThrottledWarnings;
  /**
   * The connection every worker of this host sends its commands on (their blocking waits have their own), left open
   * on close. Shared with a QueueClient, it puts the adds that client sends from a handler ahead of the job's
   * completion (see `QueueClient.sendMany`). By default each worker connects on its own.
   */
  connection?: RedisClient;
}

/**
 * Runs BullMQ workers for the chosen queues. Refuses to start unless every job of those queues has a handler,
 * so a catalog entry without a handler fails at start-up rather than when its first job arrives.
 */
export class WorkerHost {
  private readonly workers: Worker[] = [];
  private readonly connections: RedisClient[] = [];
  private readonly slots: Slots;

  constructor(private readonly opts: WorkerHostOptions) {
    this.slots = new Slots(opts.maxActive ?? Infinity);
  }

  start<N extends JobName>(handlers: JobHandlers<N>): void {
    const served = Object.keys(this.opts.queues);
    const needed = served.flatMap(jobsOfQueue);
    const missing = needed.filter((n) => !(n in handlers));
    if (missing.length) throw new Error(`no handler registered for job(s): ${missing.join(', ')}`);
    const warnings = this.opts.warnings ?? connectionWarnings();
    for (const queue of served) {
      const connection = this.opts.connection ?? createRedisConnection(this.opts.redisUrl, warnings);
      if (!this.opts.connection) this.connections.push(connection);
      const worker = new Worker(
        queue,
        async (job: Job, token?: string) => {
          const name = job.name as N;
          const def = jobCatalog[name];
          // A job Redis lost in part (its place in the queue kept, its data gone) has no name: re-planning adds it anew.
          if (job.name === undefined) throw new UnrecoverableError(`job ${job.id} on queue ${queue}: its name and data are missing from Redis (lost in part); the reconciler adds its work again`);
          if (!def || def.queue !== queue) throw new Error(`job ${job.id}: unknown job name "${job.name}" on queue ${queue}`);
          const handler = handlers[name] as JobHandler<N>;
          await this.slots.run(() => handler(def.schema.parse(job.data) as JobPayload<N>, job, token));
        },
        {
          connection,
          prefix: queueKeyPrefix(this.opts.prefix, queue),
          concurrency: this.opts.queues[queue],
          lockDuration: this.opts.lockDurationMs ?? 30_000,
          settings: { backoffStrategy },
          stalledInterval: Math.max(1_000, Math.floor((this.opts.lockDurationMs ?? 30_000) / 2)),
        },
      );
      worker.on('failed', (job, error) => {
        if (job) this.opts.onFailed?.(job, error, isFinalFailure(job, error));
      });
      // Connection errors are retried by ioredis, and jobs are not lost; a wrong URL or password must still be seen.
      worker.on('error', warnings.listener('redis'));
      this.workers.push(worker);
    }
  }

  /** Changes how many jobs of `queue` this host runs at once, effective from its next fetch (adaptive concurrency). */
  setConcurrency(queue: string, concurrency: number): void {
    const worker = this.workers.find((w) => w.name === queue);
    if (worker && worker.concurrency !== concurrency) worker.concurrency = concurrency;
  }

  /** Finishes active jobs, then disconnects (SIGTERM path). */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    // BullMQ leaves a connection it was handed open; those this host made are its to close.
    for (const c of this.connections) c.disconnect();
  }
}

/**
 * The waits of the catalog's retry policy (`CATALOG_BACKOFF`): `retryDelayMs` of the job's entry; a job of no entry
 * doubles its own delay.
 */
function backoffStrategy(attemptsMade: number, _type?: string, _err?: Error, job?: MinimalJob): number {
  const def: JobDefinition<z.ZodType> | undefined = job && (jobCatalog as Record<string, JobDefinition<z.ZodType>>)[job.name];
  const own = job?.opts.backoff;
  return retryDelayMs(def ?? { backoffMs: (typeof own === 'object' ? own.delay : own) ?? 1_000 }, attemptsMade);
}

/**
 * A counting semaphore over the host's queues. A job waiting for a slot is already active in BullMQ and keeps its lock
 * renewed; it only starts its work later.
 */
class Slots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
