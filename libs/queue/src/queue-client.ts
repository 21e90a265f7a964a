import { Queue } from 'bullmq';
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

/** Producer side: validates payloads against the catalog and adds jobs with deterministic ids. */
export class QueueClient {
  private readonly queues = new Map<string, Queue>();
  private readonly connection: RedisClient & ReplaceCheckCommands;

  constructor(redisUrl: string, private readonly prefix: string) {
    this.connection = withReplaceCheck(createRedisConnection(redisUrl));
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
      for (let i = 0; i < jobs.length; i += 500) await Promise.all(jobs.slice(i, i + 500).map((j) => queue.add(j.name, j.data, j.opts)));
    };
    const check = opts.recoverLost ? 'lost' : 'finished';
    const perCheck = opts.recoverLost ? 20_000 : 500;
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
    this.connection.disconnect();
  }
}
