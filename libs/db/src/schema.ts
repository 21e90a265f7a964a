import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface DatasetsTable { id: Generated<number>; name: string; created_at: Timestamp }
export interface DatasetVersionsTable {
  id: Generated<number>; dataset_id: number; content_hash: string; format: 'spider' | 'bird' | 'minibench';
  source_path: string; item_count: number; created_at: Timestamp;
}
export interface DatasetDatabasesTable {
  version_id: number; db_id: string; replica_path: string; checksum: string; schema: Json<unknown>;
}
export interface DatasetItemsTable {
  version_id: number; item_id: string; position: number; split: 'train' | 'dev'; db_id: string; question: string;
  evidence: string | null; gold_sql: string; difficulty: string | null; hardness: string | null;
  gold_flag: ColumnType<GoldFlag | null, GoldFlag | null | undefined, GoldFlag | null>; gold_flag_reason: ColumnType<string | null, string | null | undefined, string | null>;
}
/**
 * A dataset file stored by content (sha256); complete once this row is committed. `location`: where its bytes are
 * (`dataset_file_chunks`, or the S3-compatible store's object `<prefix>/<sha256>`).
 */
export interface DatasetFilesTable { sha256: string; size: number; chunk_count: number; stored_at: Timestamp; location: Generated<DatasetFileLocation> }
export type DatasetFileLocation = 'postgres' | 's3';
export interface DatasetFileChunksTable { sha256: string; idx: number; data: Buffer }
/** The files a dataset version is made of (what its content hash covers), by path relative to the dataset folder. */
export interface DatasetVersionFilesTable { version_id: number; path: string; sha256: string; size: number }
/** Why an item's gold query cannot be scored against (set by `datasets add`); flagged items are left out of sweeps. */
export type GoldFlag = 'error' | 'timeout' | 'refused' | 'truncated';
export interface SweepsTable { id: string; name: string; source: string; config: Json<unknown>; config_hash: string; created_at: Timestamp }
/** 'running' ends in exactly one of the others; a 'failed' run says why in `failure_reason`. */
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';
export interface RunsTable {
  id: string; sweep_id: string; dataset_version_id: number; status: RunStatus;
  failure_reason: ColumnType<string | null, string | null | undefined, string | null>;
  priority: string; item_count: number; stage_jobs: number; reused_stages: number; simulated: boolean;
  cache_namespace: Generated<string>; llm_mode: Generated<'online' | 'batch'>; estimated_llm_calls: Generated<number>;
  estimated_input_tokens: ColumnType<number, number | undefined, number>; estimated_output_tokens: ColumnType<number, number | undefined, number>;
  estimated_cost_usd: Generated<number>;
  /** Item results written for the run so far (see RunRepository.materialize). */
  closed_items: Generated<number>;
  created_at: Timestamp; finished_at: Timestamp | null;
}
export interface VariantsTable {
  id: string; run_id: string; variant_key: string; label: string; pipeline: string; model: string;
  sample_index: number; params: Json<Record<string, unknown>>; position: number;
  /** The thresholds this variant's operating points resolved to (`ResolvedKnobRecord`); [] when it gave raw numbers. */
  resolved_knobs: ColumnType<ResolvedKnobRecord[], string | undefined, string>;
}
/** One operating point of a variant and the threshold the planner chose for it, with the curve point it read. */
export interface ResolvedKnobRecord {
  knob: string;
  point: { recall: number } | { reduction: number };
  value: number;
  /** recall and reduction the chosen threshold reaches on the curve */
  recall: number;
  reduction: number;
  curve: { datasetHash: string; encoder: string; encoderFingerprint: string; optionsKey: string; items: number };
}
/** A table-retrieval curve: recall / reduction per threshold of one encoder on one dataset version. */
export interface RetrievalCurvesTable {
  dataset_hash: string; encoder_fingerprint: string; options_key: string; encoder_name: string; items: number;
  points: Json<Array<{ value: number; recall: number; itemRecall: number; reductionRatio: number; meanTablesKept: number }>>;
  created_at: Timestamp;
}
export interface RunStagesTable {
  run_id: string; variant_id: string; item_id: string; stage: string; stage_key: string; role: string;
  params: Json<Record<string, string | number | boolean>>; inputs: Json<Record<string, string>>;
  input_keys: string[]; last_input_key: string | null; is_final: boolean;
}
export interface StageResultsTable {
  stage_key: string; stage: string; output: Json<unknown>; simulated: boolean; input_tokens: number;
  cached_input_tokens: number; output_tokens: number; cost_usd: number; latency_ms: number; trace: Json<unknown> | null;
  run_id: string | null; variant_id: string | null; machine: string; created_at: Timestamp;
  /** The answer came from the response cache: this row's writer paid nothing for it (cost_usd is what its call cost). */
  reused: ColumnType<boolean, boolean | undefined, boolean>;
}
export interface StageFailuresTable { run_id: string; stage_key: string; stage: string; error: string; created_at: Timestamp }
export interface ItemResultsTable {
  run_id: string; variant_id: string; item_id: string; final_stage_key: string; correct: boolean; errored: boolean;
  reason: string; predicted_sql: string | null; difficulty: string | null; input_tokens: number; output_tokens: number;
  cost_usd: number; latency_ms: number; simulated: boolean; created_at: Timestamp;
  metrics: ColumnType<Record<string, number>, string | undefined, string>;
  /** The named scorer of the verdict (`bird-ex@2`); null for an item whose stages failed, or rows from before scorers. */
  scorer: ColumnType<string | null, string | null | undefined, string | null>;
  /** The final answer held no SQL (the evaluate stage's `parseFailed`): not correct, not errored, counted apart. */
  parse_failed: ColumnType<boolean, boolean | undefined, boolean>;
}
export interface RunSummariesTable {
  run_id: string; variant_id: string; items: number; correct: number; errors: number; ex: number;
  input_tokens: ColumnType<string, number, number>; output_tokens: ColumnType<string, number, number>;
  cost_usd: number; wall_ms: number; simulated: boolean;
  metrics: ColumnType<Record<string, number>, string | undefined, string>;
  /** The scorers of the variant's item results, comma-separated (one in practice); null when none names one. */
  scorer: ColumnType<string | null, string | null | undefined, string | null>;
  /** Items whose final answer held no SQL (item_results.parse_failed). */
  parse_failures: ColumnType<number, number | undefined, number>;
}

export interface Database {
  datasets: DatasetsTable;
  dataset_versions: DatasetVersionsTable;
  dataset_databases: DatasetDatabasesTable;
  dataset_items: DatasetItemsTable;
  dataset_files: DatasetFilesTable;
  dataset_file_chunks: DatasetFileChunksTable;
  dataset_version_files: DatasetVersionFilesTable;
  sweeps: SweepsTable;
  runs: RunsTable;
  variants: VariantsTable;
  run_stages: RunStagesTable;
  stage_results: StageResultsTable;
  stage_failures: StageFailuresTable;
  item_results: ItemResultsTable;
  run_summaries: RunSummariesTable;
  retrieval_curves: RetrievalCurvesTable;
}

export type RunRow = Selectable<RunsTable>;
export type VariantRow = Selectable<VariantsTable>;
export type RunStageRow = Selectable<RunStagesTable>;
export type NewRunStage = Insertable<RunStagesTable>;
export type ItemResultRow = Selectable<ItemResultsTable>;
export type RunSummaryRow = Selectable<RunSummariesTable>;
