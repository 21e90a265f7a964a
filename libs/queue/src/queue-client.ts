import { Queue } from 'bullmq';
import { createRedisConnection, type RedisClient } from './connection';
import { jobCatalog, jobIdFor, priorities, queueKeyPrefix, type JobName, type JobPayload } from './job-catalog';

export interface EnqueueOptions { key: string; priority?: keyof typeof priorities }

/** Producer side: validates payloads against the catalog and adds jobs with deterministic ids. */
export class QueueClient {
  private readonly queues = new Map<string, Queue>();
  private readonly connection: RedisClient;

  constructor(redisUrl: string, private readonly prefix: string) {
    this.connection = createRedisConnection(redisUrl);
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

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, opts: EnqueueOptions): Promise<void> {
    await this.enqueueMany(name, [{ payload, ...opts }]);
  }

  /**
   * Adds jobs in bulk, one per id: a job whose id is waiting, delayed or active is not added again. A job kept as
   * completed or failed is replaced, since BullMQ would otherwise ignore the add: callers enqueue only what Postgres
   * says is still to do, so such a job is stale (its result was lost with a Postgres, or it failed for good in an
   * earlier run) and leaving it would stall the run.
   */
  async enqueueMany<N extends JobName>(name: N, jobs: Array<{ payload: JobPayload<N> } & EnqueueOptions>): Promise<void> {
    if (jobs.length === 0) return;
    const def = jobCatalog[name];
    const queue = this.queue(def.queue);
    const toAdd = jobs.map((j) => ({
      name,
      data: def.schema.parse(j.payload),
      opts: {
        jobId: jobIdFor(name, j.key),
        attempts: def.attempts,
        backoff: { type: 'exponential', delay: def.backoffMs },
        priority: priorities[j.priority ?? 'interactive'],
        removeOnComplete: { age: 24 * 3600, count: 100_000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    }));
    // One add per job rather than addBulk: the adds go out back to back on one connection, one round trip in all,
    // without addBulk's MULTI, which made a single add cost about 1.7 times as much. Each add is idempotent by job id.
    const add = (jobs: typeof toAdd) => Promise.all(jobs.map((j) => queue.add(j.name, j.data, j.opts)));
    for (let i = 0; i < toAdd.length; i += 500) {
      const chunk = toAdd.slice(i, i + 500);
      // Sent together: whichever Redis runs first, a finished job stays finished and the add leaves it be.
      const [finished] = await Promise.all([this.finishedIds(queue, chunk.map((j) => j.opts.jobId)), add(chunk)]);
      if (finished.size === 0) continue;
      await Promise.all([...finished].map((id) => queue.remove(id)));
      await add(chunk.filter((j) => finished.has(j.opts.jobId)));
    }
  }

  /** Of these job ids, those kept as completed or failed: one round trip, two commands whatever their number. */
  private async finishedIds(queue: Queue, ids: string[]): Promise<Set<string>> {
    const replies = (await this.connection.pipeline().zmscore(queue.keys.completed, ...ids).zmscore(queue.keys.failed, ...ids).exec()) ?? [];
    const [completed, failed] = replies.map(([err, scores]) => {
      if (err) throw err;
      return scores as Array<string | null>;
    });
    return new Set(ids.filter((_, i) => completed[i] !== null || failed[i] !== null));
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
