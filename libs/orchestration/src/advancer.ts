import type { ReadyStage, RunRepository } from '@sqlsweep/db';
import type { QueueClient } from '@sqlsweep/queue';
import type { StageJobPayload } from '@sqlsweep/contracts';

/**
 * Moves runs forward from what Postgres says: enqueues every stage whose inputs are ready (job id = stage key, so
 * enqueueing twice is harmless), turns finished final stages and failures into item results, and closes runs.
 */
export class Advancer {
  constructor(private readonly runs: RunRepository, private readonly queue: QueueClient) {}

  /** Re-plans a run from Postgres alone: the start of a run, `--resume`, and recovery after lost Redis state. */
  async reconcile(runId: string): Promise<{ enqueued: number; finished: boolean }> {
    const enqueued = await this.enqueue(await this.runs.readyStages(runId));
    await this.runs.materializeItemResults([runId]);
    const finished = await this.runs.finalizeIfComplete(runId);
    return { enqueued, finished };
  }

  /** Called (through an `run.advance` job) after a stage's result or final failure was stored. */
  async onStageSettled(stageKey: string): Promise<void> {
    await this.enqueue(await this.runs.readyDependents(stageKey));
    const runIds = await this.runs.runningRunsWithKey(stageKey);
    await this.runs.materializeItemResults(runIds);
    for (const runId of runIds) await this.runs.finalizeIfComplete(runId);
  }

  private async enqueue(ready: ReadyStage[]): Promise<number> {
    for (const role of ['llm', 'sql', 'retrieval'] as const) {
      const jobs = ready.filter((r) => r.role === role).map((r) => ({
        key: r.stage_key,
        priority: r.priority === 'nightly' ? ('nightly' as const) : ('interactive' as const),
        payload: {
          stageKey: r.stage_key, stage: r.stage, datasetVersionId: r.dataset_version_id, itemId: r.item_id,
          params: r.params as unknown as StageJobPayload['params'], inputs: r.inputs as unknown as Record<string, string>,
          runId: r.run_id, variantId: r.variant_id,
        },
      }));
      await this.queue.enqueueMany(`stage.${role}`, jobs);
    }
    return ready.length;
  }
}
