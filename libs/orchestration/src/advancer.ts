import type { ClosedItems, ReadyStage, RunRepository } from '@sqlsweep/db';
import type { EnqueueManyOptions, QueueClient } from '@sqlsweep/queue';
import { contentHash, type StageJobPayload } from '@sqlsweep/contracts';

const lane = (r: ReadyStage) => (r.priority === 'nightly' ? ('nightly' as const) : ('interactive' as const));

const stageQueues = ['llm', 'sql', 'retrieval'] as const;
const inBatchMode = (r: ReadyStage) => r.role === 'llm' && r.llm_mode === 'batch';

/** The ready stages of `role` that run as a stage job of their own (not in a provider batch), as its adds. */
function singleJobs(ready: ReadyStage[], role: (typeof stageQueues)[number]) {
  return ready.filter((r) => r.role === role && !inBatchMode(r)).map((r) => ({ key: r.stage_key, priority: lane(r), payload: payloadOf(r) }));
}

function payloadOf(r: ReadyStage): StageJobPayload {
  return {
    stageKey: r.stage_key, stage: r.stage, datasetVersionId: r.dataset_version_id, itemId: r.item_id,
    params: r.params as unknown as StageJobPayload['params'], inputs: r.inputs as unknown as Record<string, string>,
    runId: r.run_id, variantId: r.variant_id, final: r.is_final, ...(r.input_outputs ? { inputOutputs: r.input_outputs } : {}),
  };
}

/** The keys of stored stages that may end items: all but those marked `final: false`. */
export const finalKeys = (stored: { stageKey: string; final?: boolean }[]) => stored.filter((s) => s.final !== false).map((s) => s.stageKey);

/**
 * Wall-clock milliseconds of advancing past stored stages: find the ready dependents, enqueue them (until the adds are
 * sent, see `onStagesStored`), and the wait for closing the items they end and the runs those end beyond those two.
 */
export interface AdvanceTimings { lookup: number; enqueue: number; close: number }

/** Milliseconds since the previous call (or since the stopwatch was made), to the microsecond. */
function stopwatch(): () => number {
  let last = performance.now();
  return () => {
    const now = performance.now();
    const ms = Math.round((now - last) * 1000) / 1000;
    last = now;
    return ms;
  };
}

/**
 * Moves runs forward from what Postgres says: enqueues every stage whose inputs are ready (job id = stage key, so
 * enqueueing twice is harmless), turns finished final stages and failures into item results, and closes runs.
 */
export class Advancer {
  constructor(private readonly runs: RunRepository, private readonly queue: QueueClient) {}

  /**
   * Re-plans a run from Postgres alone: the start of a run, `--resume`, the reconciler, and recovery after lost Redis
   * state. Enqueues every ready stage (a job already queued or running stays as it is), closes the items and the run
   * that the stored results and failures finish, and marks the run `failed` when it cannot proceed: items lack a
   * result but nothing is left to run (`failureReason` then says why). A ready stage's job that Redis lost in part (its
   * data kept, its place in the queue gone) is added again too.
   */
  async reconcile(runId: string): Promise<{ enqueued: number; finished: boolean; failureReason?: string }> {
    const enqueued = await this.enqueue(await this.runs.readyStages(runId), { recoverLost: true });
    await this.runs.materializeItemResults([runId]);
    const finished = await this.runs.finalizeIfComplete(runId);
    if (finished || enqueued > 0) return { enqueued, finished };
    const failureReason = await this.runs.failIfStuck(runId);
    return failureReason ? { enqueued, finished, failureReason } : { enqueued, finished };
  }

  /**
   * Called by the worker that stored stage results, before their jobs complete: enqueues the ready dependents and,
   * for final stages, closes the items they finish. Looks only at rows that read or end with these keys; `final: false`
   * marks a key that ends no item. `found`: what the caller did of this already, after the results' commit (see
   * StageRepository.saveResultsAndFindReady): the ready dependents it looked up, and the items of the final stages
   * among `stored` it closed, with their runs (only those whose last item that was are then closed here).
   *
   * The adds are sent, not waited for (`QueueClient.sendMany`): the worker completes the jobs on the same connection,
   * so Redis queues the dependents before it marks the jobs complete, and the job's completion carries the adds' round
   * trip. A worker lost in between leaves the jobs to be retried, and the retries advance. `acknowledged` settles with
   * Redis's answer to the adds, after which the caller learns of a failed one (see StageRunner).
   */
  async onStagesStored(stored: { stageKey: string; final?: boolean }[], found: { ready?: ReadyStage[]; closed?: ClosedItems } = {}): Promise<{ timings: AdvanceTimings; acknowledged: Promise<void> }> {
    const lap = stopwatch();
    // Closing items (Postgres) needs nothing from the lookup and enqueue: it runs beside them, on its own connection.
    const closing = this.closeItemsEndingWith(finalKeys(stored), found.closed);
    closing.catch(() => undefined); // awaited below; this only keeps a failure while the lookup runs from counting as unhandled
    const ready = found.ready ?? await this.runs.readyDependents(stored.map((s) => s.stageKey));
    const lookup = lap();
    const { acknowledged } = await this.send(ready);
    const enqueue = lap();
    await closing;
    return { timings: { lookup, enqueue, close: lap() }, acknowledged };
  }

  /**
   * Closes the items these final stages end (unless `closed` says they were, and in which runs), and then each run
   * whose last item that was (by its count).
   */
  private async closeItemsEndingWith(finals: string[], closed?: ClosedItems): Promise<void> {
    for (const { runId, allClosed } of closed ?? await this.runs.materializeItemResultsEndingWith(finals)) {
      if (allClosed) await this.runs.finalizeIfComplete(runId);
    }
  }

  /**
   * Called through a `run.advance` job after a stage's final failure was recorded (or when advancing in the worker
   * failed): the same, but closes every item of the key's running runs, as a failure can end items at any stage.
   */
  async onStageSettled(stageKey: string): Promise<void> {
    await this.enqueue(await this.runs.readyDependents([stageKey]));
    const runIds = await this.runs.runningRunsWithKey(stageKey);
    await this.runs.materializeItemResults(runIds);
    for (const runId of runIds) await this.runs.finalizeIfComplete(runId);
  }

  private async enqueue(ready: ReadyStage[], opts: EnqueueManyOptions = {}): Promise<number> {
    // One Redis round trip for all three queues: the adds share a connection, so concurrent ones are pipelined.
    await Promise.all(stageQueues.map((role) => this.queue.enqueueMany(`stage.${role}`, singleJobs(ready, role), opts)));
    await this.enqueueBatches(ready, opts);
    return ready.length;
  }

  /** `enqueue`, returning once the stage jobs' adds are sent (see `onStagesStored`); batch waves are waited for. */
  private async send(ready: ReadyStage[]): Promise<{ acknowledged: Promise<void> }> {
    const sent = await Promise.all(stageQueues.map((role) => this.queue.sendMany(`stage.${role}`, singleJobs(ready, role))));
    await this.enqueueBatches(ready);
    return { acknowledged: Promise.all(sent.map((s) => s.acknowledged)).then(() => undefined) };
  }

  /** Batch mode: one provider batch per (run, model) wave of ready LLM stages; its id is the hash of its keys. */
  private async enqueueBatches(ready: ReadyStage[], opts: EnqueueManyOptions = {}): Promise<void> {
    const waves = new Map<string, ReadyStage[]>();
    for (const r of ready.filter(inBatchMode)) {
      const wave = `${r.run_id}/${String((r.params as Record<string, unknown>).model)}`;
      waves.set(wave, [...(waves.get(wave) ?? []), r]);
    }
    for (const rows of waves.values()) {
      const payloads = rows.map(payloadOf).sort((a, b) => (a.stageKey < b.stageKey ? -1 : 1));
      await this.queue.enqueue('llm.batch', { runId: rows[0].run_id, model: String(payloads[0].params.model), stages: payloads }, {
        key: contentHash(payloads.map((p) => p.stageKey)), priority: lane(rows[0]),
      }, opts);
    }
  }
}
