import { z } from 'zod';
import { advanceJobPayloadSchema, llmBatchJobPayloadSchema, stageJobPayloadSchema } from '@sqlsweep/contracts';

export interface JobDefinition<S extends z.ZodType> {
  queue: string;
  schema: S;
  attempts: number;
  /** The wait before the second attempt; it doubles with each attempt after that, up to `maxBackoffMs`. */
  backoffMs: number;
  /** The longest wait between two attempts (none by default). */
  maxBackoffMs?: number;
}

/**
 * Every job the system runs, in one place: its queue, payload schema and retry policy. Job names are string
 * literals, never class names. Workers must register exactly one handler per job of the queues they serve.
 */
export const jobCatalog = {
  // 12 attempts, 0.5 s doubling to at most 8 s: 63.5 s of retries (a provider's outage of a minute is ridden out),
  // and a provider failing 30 % of calls fails one call of 480 for good in ~4,000 runs. With no cap (8 attempts, the
  // same 63.5 s) the last waits were 16 and 32 s: the one call of a run that failed six or seven times held the
  // whole run up for most of a minute (bench/chaos, provider-30pct-500).
  'stage.llm': { queue: 'stage-llm', schema: stageJobPayloadSchema, attempts: 12, backoffMs: 500, maxBackoffMs: 8_000 },
  'stage.sql': { queue: 'stage-sql', schema: stageJobPayloadSchema, attempts: 3, backoffMs: 500 },
  'stage.retrieval': { queue: 'stage-retrieval', schema: stageJobPayloadSchema, attempts: 3, backoffMs: 1_000 },
  'run.advance': { queue: 'advance', schema: advanceJobPayloadSchema, attempts: 10, backoffMs: 500 },
  /** Batch-mode runs: one provider batch for a wave of ready LLM stages of one model (polled, then ingested). */
  'llm.batch': { queue: 'stage-llm', schema: llmBatchJobPayloadSchema, attempts: 5, backoffMs: 5_000 },
  /** Builds one schema index (tables or columns of a database) on a retrieval worker; a no-op when it exists. */
  'index.build': {
    queue: 'stage-retrieval',
    schema: z.object({ datasetVersionId: z.number().int().positive(), dbId: z.string().min(1), kind: z.enum(['table', 'column']) }),
    attempts: 3, backoffMs: 1_000,
  },
  'schedule.fire': {
    queue: 'schedules', schema: z.object({ schedule: z.string().min(1), firedAt: z.iso.datetime().optional() }), attempts: 5, backoffMs: 5_000,
  },
} as const satisfies Record<string, JobDefinition<z.ZodType>>;

export type JobName = keyof typeof jobCatalog;
export type JobPayload<N extends JobName> = z.infer<(typeof jobCatalog)[N]['schema']>;
export const queueNames = [...new Set(Object.values(jobCatalog).map((d) => d.queue))];

/**
 * BullMQ's key prefix for one queue: `<prefix>:{<queue>}`. The braces are a Redis Cluster hash tag: every key of a
 * queue (BullMQ's Lua scripts touch several at once) hashes to the same slot, and the queues spread over the slots.
 * Every Queue and Worker of a queue must use it, or they would not see each other's jobs.
 */
export function queueKeyPrefix(prefix: string, queue: string): string {
  return `${prefix}:{${queue}}`;
}

export function jobsOfQueue(queue: string): JobName[] {
  return (Object.keys(jobCatalog) as JobName[]).filter((n) => jobCatalog[n].queue === queue);
}

/** BullMQ custom job ids may not contain ':'; stage keys are hex, so the id is the key itself. */
export function jobIdFor(name: JobName, key: string): string {
  if (name === 'run.advance') return `advance-${key}`;
  if (name === 'index.build') return `index-${key}`;
  if (name === 'llm.batch') return `batch-${key}`;
  return key;
}

/**
 * BullMQ priorities of the two lanes. Interactive jobs carry none: BullMQ serves its plain wait list, which costs less
 * to add to and take from than the prioritized set, before any prioritized job.
 */
export const priorities = { interactive: 0, nightly: 10 } as const;

/** BullMQ's name for the catalog's retry waits (`retryDelayMs`), which WorkerHost's workers compute. */
export const CATALOG_BACKOFF = 'sqlsweep-catalog';

/** The wait after a job's `attemptsMade`-th failed attempt: `backoffMs` doubling per attempt, capped at `maxBackoffMs`. */
export function retryDelayMs(def: Pick<JobDefinition<z.ZodType>, 'backoffMs' | 'maxBackoffMs'>, attemptsMade: number): number {
  return Math.min(def.backoffMs * 2 ** Math.max(0, attemptsMade - 1), def.maxBackoffMs ?? Infinity);
}
