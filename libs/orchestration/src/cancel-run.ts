import type { CancelRunResponse, LlmBatchJobPayload } from '@sqlsweep/contracts';
import type { RunRepository, RunStatus } from '@sqlsweep/db';
import type { Job, QueueClient } from '@sqlsweep/queue';

const queueOfRole: Record<string, string> = { llm: 'stage-llm', sql: 'stage-sql', retrieval: 'stage-retrieval' };
const queuedStates = ['waiting', 'prioritized', 'delayed', 'waiting-children'] as const;
const removableStates = new Set<string>(queuedStates);

/**
 * Marks the run cancelled (the advancer then ignores it) and removes the queued jobs only this run needed: its
 * stage jobs, and in batch mode its LLM batches not yet submitted. Jobs already active finish, and a batch already
 * with the provider is still collected (it is paid for); their results are memoized for any later run. A job
 * another running run also needs stays.
 */
export async function cancelRun(runs: RunRepository, queue: QueueClient, run: { id: string; status: RunStatus }): Promise<CancelRunResponse> {
  const { cancelled, orphanStages } = await runs.cancelRun(run.id);
  if (!cancelled) return { runId: run.id, status: run.status, removedJobs: 0 };
  let removedJobs = 0;
  for (let i = 0; i < orphanStages.length; i += 100) {
    const removed = await Promise.all(orphanStages.slice(i, i + 100).map(async ({ stageKey, role }) => {
      const name = queueOfRole[role];
      return name ? removeIfQueued(await queue.queue(name).getJob(stageKey)) : false;
    }));
    removedJobs += removed.filter(Boolean).length;
  }
  const orphan = new Set(orphanStages.map((s) => s.stageKey));
  const batches = (await queue.queue(queueOfRole.llm).getJobs([...queuedStates])).filter((job): job is Job<LlmBatchJobPayload> =>
    job?.name === 'llm.batch' && job.data.runId === run.id && !job.data.submitted && job.data.stages.every((s: { stageKey: string }) => orphan.has(s.stageKey)));
  for (const job of batches) if (await removeIfQueued(job)) removedJobs++;
  return { runId: run.id, status: 'cancelled', removedJobs };
}

async function removeIfQueued(job: Job | undefined): Promise<boolean> {
  if (!job || !removableStates.has(await job.getState())) return false;
  try {
    await job.remove();
    return true;
  } catch {
    return false; // picked up by a worker between the state read and the removal: it finishes, harmlessly
  }
}
