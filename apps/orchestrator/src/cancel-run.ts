import type { CancelRunResponse } from '@sqlsweep/contracts';
import type { ApiReadRepository, RunListRow } from '@sqlsweep/db';
import type { QueueClient } from '@sqlsweep/queue';

const queueOfRole: Record<string, string> = { llm: 'stage-llm', sql: 'stage-sql', retrieval: 'stage-retrieval' };
const removableStates = new Set(['waiting', 'prioritized', 'delayed', 'waiting-children']);

/**
 * Marks the run cancelled (the advancer then ignores it) and removes the queued jobs only this run needed. Jobs
 * already active finish; their results are memoized for any later run. A job another running run also needs stays.
 */
export async function cancelRun(reads: ApiReadRepository, queue: QueueClient, run: RunListRow): Promise<CancelRunResponse> {
  const { cancelled, orphanStages } = await reads.cancelRun(run.id);
  if (!cancelled) return { runId: run.id, status: run.status, removedJobs: 0 };
  let removedJobs = 0;
  for (let i = 0; i < orphanStages.length; i += 100) {
    const removed = await Promise.all(orphanStages.slice(i, i + 100).map(async ({ stageKey, role }) => {
      const name = queueOfRole[role];
      if (!name) return false;
      const job = await queue.queue(name).getJob(stageKey);
      if (!job || !removableStates.has(await job.getState())) return false;
      try {
        await job.remove();
        return true;
      } catch {
        return false; // picked up by a worker between the state read and the removal: it finishes, harmlessly
      }
    }));
    removedJobs += removed.filter(Boolean).length;
  }
  return { runId: run.id, status: 'cancelled', removedJobs };
}
