import { hostname } from 'node:os';
import type { StageJobPayload } from '@sqlsweep/contracts';
import {
  DatasetFileNotStoredError, registerCommandFor, ReplicaChecksumError, type DatabaseSchema, type ReplicaMaterializer, type ReplicaRequest,
} from '@sqlsweep/datasets';
import type { DatasetRepository, StageRepository, StoredItem } from '@sqlsweep/db';
import { finalKeys, type AdvanceTimings, type Advancer } from '@sqlsweep/orchestration';
import { isLlmError, queueDisposition, type LlmClient } from '@sqlsweep/llm';
import {
  isTrainSetStage, stageImplementations, trainSetOutput,
  type LlmStage, type RetrievalServices, type StageContext, type StageFaults, type StageImplementation, type StageRun,
} from '@sqlsweep/pipelines';
import type { LlmRequest, LlmResponse } from '@sqlsweep/llm';
import { GroupCommit } from './group-commit';
import { assertPlannedFault } from './planned-fault';
import { ResultCache } from './result-cache';
import { stageInputs, type Stored } from './stage-inputs';
import { WorkerDataset } from './stage-services';
import { DelayedError, priorities, Worker, UnrecoverableError, type Job, type QueueClient } from '@sqlsweep/queue';
import type { SandboxPool } from '@sqlsweep/sql-sandbox';

export interface StageRunnerDeps {
  retrieval: RetrievalServices;
  datasets: DatasetRepository;
  stages: StageRepository;
  queue: QueueClient;
  advancer: Advancer;
  llm: LlmClient;
  sandbox: SandboxPool;
  /** Makes the replicas jobs read in this worker's data directory, from the dataset store. */
  replicas: ReplicaMaterializer;
  sqlDeadlineMs: number;
  log: (obj: Record<string, unknown>, msg: string) => void;
  /** How often a job of a model paused for its quota looks again whether the pause was lifted (default 10 s). */
  pausedRecheckMs?: number;
  /** Test-only fault switches of this worker (SQLSWEEP_TEST_FAULT_*); absent in production. */
  faults?: StageFaults;
  /** Bytes (as stored) of the stage outputs it read that this worker keeps: default 64 MiB, 0 none (ResultCache). */
  resultCacheBytes?: number;
}

interface LoadedDatabase { schema: DatabaseSchema; dbPath: string }

/**
 * A stage whose result is to be stored (`run`) or is stored already, and whose runs are to move on. `paid`: the result
 * holds an LLM answer this execution paid for that is stored nowhere else durably, so it is committed durably (see
 * `StageRunner`).
 */
type Commit = { p: StageJobPayload; run: StageRun; paid: boolean } | { p: Pick<StageJobPayload, 'stageKey' | 'final'>; run?: undefined };

/**
 * What a member of a commit group learns: whether its commit wrote the key, the group's size, whether the group
 * committed durably, and the milliseconds of the group's steps (store: the insert, the dependents lookup and the
 * closing of the items final stages finish, one round trip; then, unless advancing failed, those of `AdvanceTimings`,
 * whose lookup is then none, whose enqueue ends when the adds are sent, and whose close is that of runs).
 */
interface CommitOutcome { inserted: boolean; batch: number; durable: boolean; commitMs: { store: number } & Partial<AdvanceTimings> }

/**
 * Computes one stage job: loads its item, database and inputs (from Postgres, or from the job when they are small),
 * runs the stage, stores the output once by key and asks the advancer to move on. A job whose result already exists
 * only re-triggers advancing, so at-least-once delivery never yields a second result. Input reads and commits (store,
 * then advance) of jobs running at the same time are grouped: one query, one round trip for the insert and the
 * dependents lookup, and one enqueue per group.
 *
 * Durability follows cost: a result whose LLM answer was paid for here and is held nowhere else durably (the response
 * cache could not store it, or there is none) is committed durably (fsync) before its dependents are enqueued. Any
 * other result is committed asynchronously, as its own group: SQL execution, retrieval, evaluation, and LLM answers
 * that the response cache holds, whether taken from it or stored in it (durably) by this call. One lost with a
 * Postgres crash is computed again by the reconciler for nothing, its LLM answer coming from the cache. Either way the
 * row is visible before the dependents lookup starts.
 */
export class StageRunner {
  private readonly machine = hostname();
  private readonly items = new Map<string, Promise<StoredItem>>();
  private readonly databases = new Map<string, Promise<{ schema: DatabaseSchema; request: ReplicaRequest }>>();
  /** Replica paths by database, with when they were last verified on disk (see `database`). */
  private readonly replicasSeen = new Map<string, { path: string; at: number }>();
  private readonly versions = new Map<string, Promise<{ semantics: 'spider' | 'bird'; contentHash: string; dataset: WorkerDataset }>>();

  private readonly results: ResultCache;
  private readonly reads = new GroupCommit<string[], Map<string, Stored>>(async (keyLists) => {
    const found = await this.deps.stages.getResults([...new Set(keyLists.flat())]);
    for (const [key, r] of found) this.results.set(key, r.output, r.storedBytes);
    return keyLists.map(() => found);
  });
  private readonly paidCommits = new GroupCommit<Commit, CommitOutcome>((batch) => this.commitBatch(batch, true));
  private readonly cheapCommits = new GroupCommit<Commit, CommitOutcome>((batch) => this.commitBatch(batch, false));

  constructor(private readonly deps: StageRunnerDeps) {
    this.results = new ResultCache(deps.resultCacheBytes ?? 64 * 1024 * 1024);
  }

  async run(p: StageJobPayload, job: Job, token?: string): Promise<void> {
    const clock = new PhaseClock();
    // A stage whose inputs came with its job or are cached here, or that has none, skips the existence check: only a
    // retry finds its result stored, and recomputing it then is cheap (an LLM stage's answer comes from the response
    // cache) and stores nothing twice. A training set reads none of its inputs: it lists their keys.
    const inputKeys = Object.values(p.inputs);
    const stored = isTrainSetStage(p.stage) || inputKeys.length === 0 ? new Map<string, Stored>()
      : this.allAtHand(p, inputKeys) ?? await this.reads.submit([p.stageKey, ...inputKeys]);
    let done: { run: StageRun; paid: boolean } | undefined;
    if (isTrainSetStage(p.stage)) {
      clock.lap('load');
      done = { run: { output: trainSetOutput(p.inputs), latencyMs: 0 }, paid: false };
      clock.lap('work');
    } else if (!stored.has(p.stageKey)) {
      const impl = this.implementation(p);
      const ctx = await this.context(p, job, stored);
      clock.lap('load');
      done = await this.work(impl, ctx, p, job, token);
      clock.lap('work');
    } else {
      clock.lap('load');
    }
    const { inserted, batch, durable, commitMs } = await this.commit(done ? { p, ...done } : { p });
    clock.lap('commit');
    this.deps.log({ runId: p.runId, variantId: p.variantId, stageKey: p.stageKey, jobId: job.id, stage: p.stage, inserted, batch, durable, startedAt: clock.startedAt, ms: clock.laps, commitMs }, 'stage done');
  }

  /**
   * Settles a stage BullMQ will not run again (see `isFinalFailure`): a per-run failure (never memoized) for it and
   * the stages downstream of it, then advancing here and now, so that its items are closed as errors and its runs
   * end. When advancing fails (Postgres away), a `run.advance` job does it later; when recording fails, the stage is
   * still ready in Postgres and the reconciler runs it again.
   */
  async fail(p: Pick<StageJobPayload, 'stageKey' | 'stage'>, error: Error): Promise<void> {
    await this.deps.stages.recordFailure(p.stageKey, p.stage, error.message);
    try {
      await this.deps.advancer.onStageSettled(p.stageKey);
    } catch (e) {
      this.deps.log({ stageKey: p.stageKey, err: (e as Error).message }, 'advancing past a failure failed: left to a run.advance job');
      await this.deps.queue.enqueue('run.advance', { stageKey: p.stageKey }, { key: `${p.stageKey}-failed` });
    }
  }

  /**
   * Runs the stage; `paid` when it made an LLM call that the response cache did not answer and could not store (see
   * the class comment).
   */
  private async work(impl: StageImplementation, ctx: StageContext, p: StageJobPayload, job: Job, token?: string): Promise<{ run: StageRun; paid: boolean }> {
    const started = performance.now();
    try {
      const skipped = impl.kind === 'llm' ? impl.skip?.(ctx) : undefined;
      const asked = impl.kind === 'llm' && !skipped ? await this.ask(impl, ctx, p) : undefined;
      const run = impl.kind === 'compute' ? await impl.run(ctx) : (skipped ?? asked!.run);
      // `stored`, not `reused`: an answer shared in this process by a call whose answer the cache could not store
      // counts as reused, yet no durable copy of it exists.
      const paid = !!asked && !asked.stored;
      return { run: { ...run, latencyMs: run.latencyMs ?? performance.now() - started }, paid };
    } catch (e) {
      throw await this.translate(e, job, token);
    }
  }

  /** Durably when `paid` (see `work`; batch answers: when not reused), else asynchronously; each kind in groups of its own. */
  private commit(c: Commit): Promise<CommitOutcome> {
    return (c.run && c.paid ? this.paidCommits : this.cheapCommits).submit(c);
  }

  implementation(p: StageJobPayload): StageImplementation {
    const impl = stageImplementations[p.stage];
    if (!impl) throw new UnrecoverableError(`no implementation for stage "${p.stage}"`);
    return impl;
  }

  /** Stores a result computed elsewhere (an LLM batch) and advances past it, as a stage job would. */
  async settle(p: StageJobPayload, run: StageRun, jobId: string | undefined): Promise<void> {
    const { inserted, batch, durable, commitMs } = await this.commit({ p, run, paid: !run.reused });
    this.deps.log({ runId: p.runId, variantId: p.variantId, stageKey: p.stageKey, jobId, stage: p.stage, inserted, batch, durable, commitMs }, 'stage done');
  }

  /** Moves the runs on past a result that is stored already. */
  async advance(p: Pick<StageJobPayload, 'stageKey' | 'final'>): Promise<void> {
    await this.commit({ p });
  }

  /**
   * Stores a group's new results once by key, then moves the runs on past every member, here and now: one BullMQ
   * job per stage instead of two. The results' commit, the lookup of the stages they made ready and the closing of the
   * items they finish go to Postgres in one round trip, after the commit, so of two inputs stored at once by different
   * workers, the later lookup sees both. When that fails (Postgres away), the jobs fail and are retried; when
   * closing the items, enqueueing or closing runs fails, `run.advance` jobs do it later, with their own retries, so
   * the stage jobs succeed. The dependents' adds are sent ahead of the jobs' completion on the connection the worker
   * completes them on (see `Advancer.onStagesStored`), so the jobs do not wait for Redis's answer to them.
   */
  private async commitBatch(batch: Commit[], durable: boolean): Promise<CommitOutcome[]> {
    const started = performance.now();
    const computed = batch.filter((c): c is Extract<Commit, { run: StageRun }> => c.run !== undefined);
    const stored = batch.map(({ p }) => ({ stageKey: p.stageKey, final: p.final }));
    // A group with nothing to store only advances: its lookup is the advancer's, whose failure is left to run.advance.
    const { written, ...found } = computed.length === 0 ? { written: new Set<string>() } : await this.deps.stages.saveResultsAndFindReady(computed.map(({ p, run }) => ({
      stageKey: p.stageKey, stage: p.stage, output: run.output, simulated: run.simulated ?? false,
      inputTokens: run.usage?.inputTokens, cachedInputTokens: run.usage?.cachedInputTokens, outputTokens: run.usage?.outputTokens,
      costUsd: run.costUsd, reused: run.reused, latencyMs: run.latencyMs, trace: run.trace,
      runId: p.runId, variantId: p.variantId, machine: this.machine,
    })), stored.map((s) => s.stageKey), { durable, closeItemsEndingWith: finalKeys(stored) });
    let commitMs: CommitOutcome['commitMs'] = { store: Math.round((performance.now() - started) * 1000) / 1000 };
    const leaveToAdvanceJobs = (e: unknown) => {
      this.deps.log({ stageKeys: stored.map((s) => s.stageKey), err: (e as Error).message }, 'advancing failed: left to run.advance jobs');
      return this.deps.queue.enqueueMany('run.advance', stored.map(({ stageKey }) => ({ payload: { stageKey }, key: stageKey })));
    };
    try {
      const { timings, acknowledged } = await this.deps.advancer.onStagesStored(stored, found);
      commitMs = { ...commitMs, ...timings };
      // Redis refused an add after the jobs completed (they complete once the adds are sent): run.advance jobs add
      // them again, and should Redis refuse those too, the reconciler re-plans the runs.
      acknowledged.catch((e) => leaveToAdvanceJobs(e).catch((err: Error) => this.deps.log({ stageKeys: stored.map((s) => s.stageKey), err: err.message }, 'advancing failed: left to the reconciler')));
    } catch (e) {
      await leaveToAdvanceJobs(e);
    }
    // Of two commits of one key in a group, the first wrote it.
    return batch.map((c) => ({ inserted: !!c.run && written.delete(c.p.stageKey), batch: batch.length, durable, commitMs }));
  }

  /**
   * The stage's context: its item, database replica and input outputs (`stored` when already at hand), from this
   * worker's cache or Postgres. A training set read as `input` becomes one `input/<trainItemId>` entry per member.
   */
  async context(p: StageJobPayload, job: Job, stored?: Map<string, Stored>): Promise<StageContext> {
    const item = await this.item(p.datasetVersionId, p.itemId);
    const db = await this.database(p.datasetVersionId, item.dbId);
    stored ??= await this.readResults(p, Object.values(p.inputs));
    const read = await stageInputs(p.inputs, stored, (keys) => this.readResults(p, keys));
    if ('missing' in read) throw await this.missingInput(p, read.missing.name, read.missing.key);
    const { inputs } = read;
    assertPlannedFault(p, this.deps.faults);
    const version = await this.version(p.datasetVersionId);
    const ctx: StageContext = {
      item, schema: db.schema, dbPath: db.dbPath, semantics: version.semantics, datasetVersion: version.contentHash,
      params: p.params, inputs, priority: job.opts.priority === priorities.nightly ? 'nightly' : 'interactive',
      services: {
        sandbox: this.deps.sandbox, sqlDeadlineMs: this.deps.sqlDeadlineMs, retrieval: this.deps.retrieval, dataset: version.dataset,
        ...(this.deps.faults ? { faults: this.deps.faults } : {}),
      },
    };
    return ctx;
  }

  /** The result stored under `key` if this worker has it without a read: carried by the job, or cached. */
  private atHand(p: StageJobPayload, key: string): Stored | undefined {
    const carried = p.inputOutputs;
    return carried && key in carried ? { output: carried[key] } : this.results.get(key);
  }

  /** The results stored under `keys`: those at hand, the rest from Postgres. */
  private async readResults(p: StageJobPayload, keys: string[]): Promise<Map<string, Stored>> {
    const found = new Map<string, Stored>();
    const missing: string[] = [];
    for (const key of keys) {
      const r = this.atHand(p, key);
      if (r) found.set(key, r);
      else missing.push(key);
    }
    if (missing.length === 0) return found;
    const read = await this.reads.submit(missing);
    for (const key of missing) {
      const r = read.get(key);
      if (r) found.set(key, r);
    }
    return found;
  }

  /** The results stored under `keys` when all are at hand; undefined otherwise. */
  private allAtHand(p: StageJobPayload, keys: string[]): Map<string, Stored> | undefined {
    const found = new Map<string, Stored>();
    for (const key of keys) {
      const r = this.atHand(p, key);
      if (!r) return undefined;
      found.set(key, r);
    }
    return found;
  }

  /**
   * A stage is enqueued only once its inputs are stored, so an input read as missing was lost since: a result
   * committed asynchronously (see the class comment) that a Postgres crash took. The run is re-planned here and now, so
   * that the input is enqueued again at once rather than at the reconciler's next pass, and the job retries.
   */
  private async missingInput(p: StageJobPayload, name: string, key: string): Promise<Error> {
    try {
      const { enqueued } = await this.deps.advancer.reconcile(p.runId);
      this.deps.log({ runId: p.runId, stageKey: p.stageKey, input: key, enqueued }, 'input missing: run re-planned');
    } catch (e) {
      this.deps.log({ runId: p.runId, stageKey: p.stageKey, input: key, err: (e as Error).message }, 'input missing: re-planning failed, left to the reconciler');
    }
    return new Error(`input ${name} (${key.slice(0, 12)}) of stage ${p.stage} has no result yet`);
  }

  /** The stage's LLM call and its result; `stored` when the response cache holds the answer durably. */
  private async ask(stage: LlmStage, ctx: StageContext, p: StageJobPayload): Promise<{ run: StageRun; stored: boolean }> {
    // The attribution goes into the cache row of a call this job pays for (see llmStageRun).
    const request = { ...llmRequestOf(stage, ctx, p), attribution: { runId: p.runId, variantId: p.variantId, stage: p.stage, stageKey: p.stageKey } };
    const response = await this.deps.llm.complete(request);
    return { run: llmStageRun(stage, ctx, request, response), stored: response.stored === true };
  }

  /**
   * LLM errors become BullMQ's vocabulary: rate limits wait; a model paused for its quota waits until someone resumes
   * it (`sqlsweep models resume`), its jobs looking again every `pausedRecheckMs` without spending an attempt; bad
   * requests stop; the rest retry.
   */
  async translate(e: unknown, job: Job, token?: string): Promise<Error> {
    if (!isLlmError(e)) return e instanceof Error ? e : new Error(String(e));
    const d = queueDisposition(e);
    if (d.action === 'rate_limit') {
      await this.deps.queue.queue(job.queueName).rateLimit(d.delayMs);
      return Worker.RateLimitError();
    }
    if (d.action === 'pause_model') {
      if (!token) return new UnrecoverableError(`model paused: ${d.reason}`);
      this.deps.log({ jobId: job.id, err: e.message }, 'waiting: model paused');
      await job.moveToDelayed(Date.now() + (this.deps.pausedRecheckMs ?? 10_000), token);
      return new DelayedError();
    }
    if (d.action === 'fail') return new UnrecoverableError(e.message);
    return e;
  }

  private item(versionId: number, itemId: string): Promise<StoredItem> {
    return memo(this.items, `${versionId}/${itemId}`, async () => {
      const item = await this.deps.datasets.getItem(versionId, itemId);
      if (!item) throw new UnrecoverableError(`dataset version ${versionId} has no item ${itemId}`);
      return item;
    });
  }

  /** The database's schema, and its replica in this worker's data directory (made from the dataset store on first use). */
  private async database(versionId: number, dbId: string): Promise<LoadedDatabase> {
    const { schema, request } = await memo(this.databases, `${versionId}/${dbId}`, async () => {
      const [row, v] = await Promise.all([this.deps.datasets.getDatabase(versionId, dbId), this.deps.datasets.getVersion(versionId)]);
      if (!row) throw new UnrecoverableError(`dataset version ${versionId} has no database ${dbId}`);
      const replica: ReplicaRequest = {
        dbId, sha256: row.checksum, file: row.replicaPath, version: `${v.datasetName}@${v.contentHash.slice(0, 12)}`,
        registerHint: registerCommandFor(v),
      };
      return { schema: row.schema as DatabaseSchema, request: replica };
    });
    // The replica's file is looked at (a stat) at most every `replicaRecheckMs` per database rather than by every job:
    // a replica deleted meanwhile fails the jobs of that moment, whose retries (500 ms on) find it gone and fetch it again.
    const key = `${versionId}/${dbId}`;
    const seen = this.replicasSeen.get(key);
    if (seen && performance.now() - seen.at < replicaRecheckMs) return { schema, dbPath: seen.path };
    try {
      const dbPath = await this.deps.replicas.replica(request);
      this.replicasSeen.set(key, { path: dbPath, at: performance.now() });
      return { schema, dbPath };
    } catch (e) {
      // No retry fixes a corrupt replica or a file missing from the store; a deleted replica is fetched again on the next attempt.
      if (e instanceof ReplicaChecksumError || e instanceof DatasetFileNotStoredError) throw new UnrecoverableError(e.message);
      throw e;
    }
  }

  private version(versionId: number) {
    return memo(this.versions, String(versionId), async () => {
      const v = await this.deps.datasets.getVersion(versionId);
      return { semantics: v.format === 'spider' ? ('spider' as const) : ('bird' as const), contentHash: v.contentHash, dataset: new WorkerDataset(this.deps.datasets, versionId) };
    });
  }
}

/** How long a replica verified on disk is handed out without looking again: below the first retry's backoff. */
const replicaRecheckMs = 400;

/**
 * Wall-clock milliseconds of a job's phases, each measured from the end of the previous one, and when the job started
 * (ms since the epoch, to the microsecond).
 */
class PhaseClock {
  readonly laps: Record<string, number> = {};
  private last = performance.now();
  readonly startedAt = Math.round((performance.timeOrigin + this.last) * 1000) / 1000;

  lap(phase: string): void {
    const now = performance.now();
    this.laps[phase] = (this.laps[phase] ?? 0) + Math.round((now - this.last) * 1000) / 1000;
    this.last = now;
  }
}

/** Caches a promise per key; a rejected load is forgotten so the next job tries again. */
function memo<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let p = cache.get(key);
  if (!p) {
    p = load();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

/** The request an LLM stage makes, with the sweep's cache namespace and the run's priority lane. */
export function llmRequestOf(stage: LlmStage, ctx: StageContext, p: StageJobPayload): LlmRequest {
  const call = stage.prompt(ctx);
  return {
    model: call.model, messages: call.messages, temperature: call.temperature, maxTokens: call.maxTokens,
    sampleIndex: call.sampleIndex, templateVersion: call.templateVersion, priority: ctx.priority,
    cacheNamespace: String(p.params.cacheNamespace ?? '') || undefined,
  };
}

/**
 * An LLM stage's stored result: the parsed output, accounting, and the prompt and raw answer as its trace. Its cost is
 * what the call that produced the answer cost, also when this execution took it from the cache. It is `reused` (the
 * run paid nothing for it) when it came from the cache, unless the call that paid was this very stage's in this run
 * (an earlier attempt whose worker died after the answer arrived, or a racing execution): the run did pay for that.
 */
export function llmStageRun(stage: LlmStage, ctx: StageContext, request: LlmRequest, response: LlmResponse): StageRun {
  const output = stage.parse(response, ctx);
  const parseError = (output as { parseError?: string } | null)?.parseError;
  const mine = request.attribution;
  const paidHere = !!mine?.runId && !!mine.stageKey && response.paidFor?.runId === mine.runId && response.paidFor?.stageKey === mine.stageKey;
  return {
    output, usage: response.usage, costUsd: response.answerCostUsd ?? response.costUsd, reused: response.cached && !paidHere,
    latencyMs: response.latencyMs, simulated: response.simulated,
    trace: {
      prompt: request.messages, response: response.output,
      ...(parseError ? { error: parseError } : {}), ...(response.simulation ? { simulation: response.simulation } : {}),
    },
  };
}
