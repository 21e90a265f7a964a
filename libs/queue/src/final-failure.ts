import type { Job } from 'bullmq';

/**
 * Whether BullMQ has failed this job for good, read in the worker's `failed` event (after `moveToFailed`, which has
 * counted the attempt in `attemptsMade`). It mirrors BullMQ's own test (`Job.shouldRetryJob` in bullmq 6): an error
 * named `UnrecoverableError` is never retried, whatever attempts are left, and a job that has used all its attempts
 * is not retried either. (This BullMQ has no `job.discard()`; `UnrecoverableError` is how a job stops its retries.)
 * Every queue's failure handling asks this one function, so a failure is final in one sense everywhere.
 */
export function isFinalFailure(job: Pick<Job, 'attemptsMade' | 'opts'>, error: Pick<Error, 'name'>): boolean {
  if (error.name === 'UnrecoverableError') return true;
  return job.attemptsMade >= (job.opts.attempts ?? 1);
}
