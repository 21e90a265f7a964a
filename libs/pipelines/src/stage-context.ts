import type { DatabaseSchema } from '@sqlsweep/datasets';
import type { LlmClient, LlmPriority, LlmUsage } from '@sqlsweep/llm';
import type { EvalSemantics, SandboxPool } from '@sqlsweep/sql-sandbox';

export interface StageItem {
  itemId: string;
  dbId: string;
  question: string;
  evidence: string | null;
  goldSql: string;
}

/** Everything a stage may use. Workers build it from Postgres; stages never touch storage themselves. */
export interface StageContext {
  item: StageItem;
  schema: DatabaseSchema;
  /** Checksum-verified read-only replica of the item's database. */
  dbPath: string;
  semantics: EvalSemantics;
  params: Record<string, string | number | boolean>;
  /** Outputs of the stage's inputs, by input name. */
  inputs: Record<string, unknown>;
  priority: LlmPriority;
  services: { llm: LlmClient; sandbox: SandboxPool; sqlDeadlineMs: number };
}

export interface StageTrace {
  prompt?: Array<{ role: string; content: string }>;
  response?: string;
  error?: string;
}

/** A stage's result: the output stored under its key, with accounting for the LLM stages. */
export interface StageRun {
  output: unknown;
  usage?: LlmUsage;
  costUsd?: number;
  latencyMs?: number;
  simulated?: boolean;
  trace?: StageTrace;
}

export type StageImplementation = (ctx: StageContext) => Promise<StageRun>;
