import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisConnection } from './connection';
import { jobCatalog, jobIdFor, priorities, type JobName, type JobPayload } from './job-catalog';

export interface EnqueueOptions { key: string; priority?: keyof typeof priorities }

/** Producer side: validates payloads against the catalog and adds jobs with deterministic ids. */
export class QueueClient {
  private readonly queues = new Map<string, Queue>();
  private readonly connection: Redis;

  constructor(redisUrl: string, private readonly prefix: string) {
    this.connection = createRedisConnection(redisUrl);
  }

  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefix });
      this.queues.set(name, q);
    }
    return q;
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, opts: EnqueueOptions): Promise<void> {
    await this.enqueueMany(name, [{ payload, ...opts }]);
  }

  /** Adds jobs in bulk; a job whose id already exists (waiting, active or kept as completed) is not added again. */
  async enqueueMany<N extends JobName>(name: N, jobs: Array<{ payload: JobPayload<N> } & EnqueueOptions>): Promise<void> {
    if (jobs.length === 0) return;
    const def = jobCatalog[name];
    const queue = this.queue(def.queue);
    for (let i = 0; i < jobs.length; i += 500) {
      await queue.addBulk(
        jobs.slice(i, i + 500).map((j) => ({
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
        })),
      );
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
