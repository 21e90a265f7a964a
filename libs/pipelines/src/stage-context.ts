import type { DatabaseSchema } from '@sqlsweep/datasets';
import type { ChatMessage, LlmPriority, LlmResponse, LlmUsage, SimulationReport } from '@sqlsweep/llm';
import type { Encoder, IndexSpec, MultiVectorIndex, RetrievalDocument } from '@sqlsweep/retrieval';
import type { EvalSemantics, SandboxPool } from '@sqlsweep/sql-sandbox';
import type { StageFaults } from './test-faults';

export interface StageItem {
  itemId: string;
  dbId: string;
  question: string;
  evidence: string | null;
  goldSql: string;
}

/** What a stage may read before any of its inputs exist: enough to render an estimate of its prompt. */
export interface EstimateContext {
  item: StageItem;
  schema: DatabaseSchema;
  /**
   * At run time the parameters the stage reads. Before the run (`estimate`, `skipsFor`) the planner adds those of
   * the stages upstream of it (`VariantKeyer.planTimeParams`): they are fixed by its key too.
   */
  params: Record<string, string | number | boolean>;
}

/** Retrieval for stages that need it; indexes are built once per content hash and shared by every run. */
export interface RetrievalServices {
  /** The configured late-interaction encoder (the bundled one unless configured), opened once per worker. */
  encoder(): Promise<Encoder>;
  /** Builds (first time, by content hash of documents + encoder + builder version) or opens an index. */
  index(spec: IndexSpec): Promise<MultiVectorIndex>;
  /**
   * A corpus's chunks (R3's RAG), made by `chunk` the first time `key` is asked for on this host and read back after
   * that (`cachedChunks`), or made by `chunk` every time where nothing is kept.
   */
  chunks(key: string, chunk: () => RetrievalDocument[]): Promise<RetrievalDocument[]>;
}

/** The dataset version beyond the current item: the training split (few-shot pools, skeleton repositories). */
export interface DatasetServices {
  trainItems(): Promise<StageItem[]>;
  /** Schema of any database of the version (shots from other databases show their own schema). */
  schema(dbId: string): Promise<DatabaseSchema>;
}

/** Everything a stage may use. Workers build it from Postgres; stages never touch storage themselves. */
export interface StageContext extends EstimateContext {
  /** Content hash of the dataset version (part of index specs). */
  datasetVersion: string;
  /** Checksum-verified read-only replica of the item's database. */
  dbPath: string;
  semantics: EvalSemantics;
  /**
   * Outputs of the stage's inputs, by input name. An input declared as `stage[*]` over a train-items stage arrives
   * as one entry per training item, named `<input>/<trainItemId>` (a stage reads them as a map: `trainItemsOf`).
   */
  inputs: Record<string, unknown>;
  priority: LlmPriority;
  services: {
    sandbox: SandboxPool; sqlDeadlineMs: number; retrieval: RetrievalServices; dataset: DatasetServices;
    /** Test-only fault switches this worker runs with (`test-faults.ts`); absent in production. */
    faults?: StageFaults;
  };
}

export interface StageTrace {
  prompt?: Array<{ role: string; content: string }>;
  response?: string;
  error?: string;
  /** For a simulated model: the prompt features and the probability of a correct answer the simulator used. */
  simulation?: SimulationReport;
}

/** A stage's result: the output stored under its key, with accounting for the LLM stages. */
export interface StageRun<Output = unknown> {
  output: Output;
  usage?: LlmUsage;
  /** What the LLM call that produced the output cost, also when this execution took its answer from the cache. */
  costUsd?: number;
  /** The answer came from the response cache: this execution paid nothing for it. */
  reused?: boolean;
  latencyMs?: number;
  simulated?: boolean;
  trace?: StageTrace;
}

/** One LLM request a stage wants made. The worker adds caching, budget, priority and accounting. */
export interface LlmCall {
  model: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  sampleIndex: number;
  /** Hash of the prompt template, part of the response-cache key. */
  templateVersion: string;
  /** What the planner assumes the answer costs in output tokens (default maxTokens / 4). */
  expectedOutputTokens?: number;
}

/** A stage that runs code: SQL in the sandbox, retrieval, parsing, bookkeeping. */
export interface ComputeStage {
  kind: 'compute';
  run(ctx: StageContext): Promise<StageRun>;
}

/**
 * A stage that asks an LLM once: `prompt` renders the request from the context, `parse` turns the answer into the
 * stored output. Split so that the planner can estimate cost before a run and batch mode can submit prompts.
 * `skip` lets a stage pass through without a call: a step of an unrolled chain (error correction, revision) whose
 * chain has stopped, or a stage with nothing to ask for this item and these parameters.
 */
export interface LlmStage {
  kind: 'llm';
  skip?(ctx: StageContext): StageRun | undefined;
  /**
   * Before the run: true when `skip` is certain to pass the stage through for this item and these parameters, so
   * the planner counts no call and no tokens for it (its job still runs). Leave it out, or answer false, when the
   * skip depends on inputs (chain steps): the estimate then counts the call, an upper bound.
   */
  skipsFor?(ctx: EstimateContext): boolean;
  prompt(ctx: StageContext): LlmCall;
  /** The prompt as the planner estimates it, before inputs exist (defaults to not estimable). */
  estimate?(ctx: EstimateContext): LlmCall;
  parse(response: LlmResponse, ctx: StageContext): unknown;
}

export type StageImplementation = ComputeStage | LlmStage;
