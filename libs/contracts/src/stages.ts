export type StageRole = 'llm' | 'sql' | 'retrieval';

/** What a stage job carries: enough to compute the stage from Postgres alone; runId/variantId are for logs. */
export interface StageJobPayload {
  stageKey: string;
  stage: string;
  role: StageRole;
  datasetVersionId: number;
  itemId: string;
  params: Record<string, string | number | boolean>;
  inputs: Record<string, string>;
  runId: string;
  variantId: string;
}

export interface AdvanceJobPayload {
  stageKey: string;
}

/** A stage output as stored: `ok` results are memoized by key; failures are per run and never reused. */
export type StageOutcome<T = unknown> =
  | { status: 'ok'; output: T }
  | { status: 'failed'; error: string };
