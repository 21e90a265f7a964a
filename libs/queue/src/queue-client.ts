import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { createRedisConnection, type RedisClient } from './connection';
import { CATALOG_BACKOFF, jobCatalog, jobIdFor, priorities, queueKeyPrefix, type JobName, type JobPayload } from './job-catalog';
import { jobIdsToReplace, withReplaceCheck, type ReplaceCheckCommands } from './replaced-jobs';

export interface EnqueueOptions { key: string; priority?: keyof typeof priorities }

export interface EnqueueManyOptions {
  /**
   * Also replaces a job Redis lost in part (its hash kept, its id in no list or set), which an add would take for a
   * duplicate. Costs a read of the queue's lists per 20,000 jobs when some are already queued: for re-planning, not
   * for every add.
   */
  recoverLost?: boolean;
}

/** Adds sent back to back on the connection before waiting for Redis's answers (see `enqueueMany`). */
const ADDS_PER_ROUND_TRIP = 500;

/**
 * Producer side: validates payloads against the catalog and adds jobs with deterministic ids. Connects to `redis` (a
 * URL) or sends on a connection it is handed (a worker's, shared with its WorkerHost: see `sendMany`), which it then
 * leaves open on close.
 */
export class QueueClient {
  private readonly queues = new Map<string, Queue>();
  private readonly connection: RedisClient & ReplaceCheckCommands;
  private readonly ownsConnection: boolean;

  constructor(redis: string | RedisClient, private readonly prefix: string) {
    this.ownsConnection = typeof redis === 'string';
    this.connection = withReplaceCheck(typeof redis === 'string' ? createRedisConnection(redis) : redis);
  }

  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: queueKeyPrefix(this.prefix, name) });
      // A queue repeats its connection's errors, which that connection's own listener already warns about; without a
      // listener here BullMQ would print each one with its stack (every retry of an outage or a failover).
      q.on('error', () => undefined);
      this.queues.set(name, q);
    }
    return q;
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, job: EnqueueOptions, opts: EnqueueManyOptions = {}): Promise<void> {
    await this.enqueueMany(name, [{ payload, ...job }], opts);
  }

  /**
   * Adds jobs in bulk, one per id: a job whose id is waiting, delayed or active is not added again. A job kept as
   * completed or failed is replaced, since BullMQ would otherwise ignore the add: callers enqueue only what Postgres
   * says is still to do, so such a job is stale (its result was lost with a Postgres, or it failed for good in an
   * earlier run) and leaving it would stall the run. So is a job lost in part, with `recoverLost` (see replaced-jobs.ts).
   */
  async enqueueMany<N extends JobName>(name: N, jobs: Array<{ payload: JobPayload<N> } & EnqueueOptions>, opts: EnqueueManyOptions = {}): Promise<void> {
    if (jobs.length === 0) return;
    const def = jobCatalog[name];
    const queue = this.queue(def.queue);
    const toAdd = jobs.map((j) => ({
      name,
      data: def.schema.parse(j.payload),
      opts: {
        jobId: jobIdFor(name, j.key),
        attempts: def.attempts,
        backoff: { type: CATALOG_BACKOFF, delay: def.backoffMs },
        priority: priorities[j.priority ?? 'interactive'],
        removeOnComplete: { age: 24 * 3600, count: 100_000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    }));
    // One add per job rather than addBulk: the adds go out back to back on one connection, one round trip per 500,
    // without addBulk's MULTI, which made a single add cost about 1.7 times as much. Each add is idempotent by job id.
    const add = async (jobs: typeof toAdd) => {
      for (let i = 0; i < jobs.length; i += ADDS_PER_ROUND_TRIP) await Promise.all(jobs.slice(i, i + ADDS_PER_ROUND_TRIP).map((j) => queue.add(j.name, j.data, j.opts)));
    };
    const check = opts.recoverLost ? 'lost' : 'finished';
    const perCheck = opts.recoverLost ? 20_000 : ADDS_PER_ROUND_TRIP;
    for (let i = 0; i < toAdd.length; i += perCheck) {
      const chunk = toAdd.slice(i, i + perCheck);
      // Sent with the adds: whichever Redis runs first, a job to replace stays one and the add leaves it be.
      const [replace] = await Promise.all([jobIdsToReplace(this.connection, queue, chunk.map((j) => j.opts.jobId), check), add(chunk)]);
      if (replace.size === 0) continue;
      // A job still locked (a worker may run it yet) is not removed: the add below then leaves it be, and a later
      // re-plan finds it again once its lock has lapsed.
      await Promise.all([...replace].map((id) => queue.remove(id)));
      await add(chunk.filter((j) => replace.has(j.opts.jobId)));
    }
  }

  /**
   * `enqueueMany`, resolved once its adds are on the connection rather than once Redis has run them: Redis runs one
   * connection's commands in the order they arrive, and ioredis sends them (or queues them while it reconnects) in the
   * order they are made. So a command sent on this connection afterwards runs after the adds: a worker whose
   * WorkerHost shares the connection completes the job that made these stages ready only after they are queued,
   * without waiting a round trip for the answers. `acknowledged` settles with those answers; a job that must be
   * replaced (kept as completed or failed, see `enqueueMany`) is replaced after them.
   *
   * The adds go out within the microtasks that follow the call, once the queue is ready: the next macrotask finds
   * them sent. Where order cannot be had this way, it waits for the answers instead: on a Redis Cluster (the adds and
   * the completion may go to different nodes), and for more adds than one round trip carries.
   */
  async sendMany<N extends JobName>(name: N, jobs: Array<{ payload: JobPayload<N> } & EnqueueOptions>): Promise<{ acknowledged: Promise<void> }> {
    if (jobs.length === 0) return { acknowledged: Promise.resolve() };
    if (this.connection instanceof Cluster || jobs.length > ADDS_PER_ROUND_TRIP) {
      await this.enqueueMany(name, jobs);
      return { acknowledged: Promise.resolve() };
    }
    // A queue's first command waits for its connection's set-up (a version check, a round trip); later ones do not.
    await this.queue(jobCatalog[name].queue).waitUntilReady();
    const acknowledged = this.enqueueMany(name, jobs);
    acknowledged.catch(() => undefined); // the caller's to handle; this only keeps it from counting as unhandled meanwhile
    await nextMacrotask();
    return { acknowledged };
  }

  async depths(): Promise<Record<string, Record<string, number>>> {
    const out: Record<string, Record<string, number>> = {};
    for (const [name, q] of this.queues) out[name] = await q.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
    return out;
  }

  async workerCount(queue: string): Promise<number> {
    return (await this.queue(queue).getWorkers()).length;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    if (this.ownsConnection) this.connection.disconnect();
  }
}
