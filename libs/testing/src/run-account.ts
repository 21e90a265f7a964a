/**
 * What a run left in Postgres: items planned, items with a result (correct, wrong or a recorded error), rows stored
 * twice, stage failures, and distinct LLM answers stored (each distinct call should be paid once).
 */
import { queryRows, type Db } from '@sqlsweep/db';

export interface RunAccount {
  status: string;
  itemsPlanned: number;
  itemsWithResult: number;
  itemsErrored: number;
  /** Rows beyond one per key in item_results, stage_results, stage_failures and run_summaries. */
  duplicatedRows: number;
  stageFailures: number;
  /** Distinct LLM answers in the response cache: the calls the run needed once each. */
  storedLlmAnswers: number;
}

export async function accountRun(db: Db, runId: string): Promise<RunAccount> {
  const rows = await queryRows<RunAccount>(db)`
    SELECT (SELECT status FROM runs WHERE id = ${runId}) AS "status",
      (SELECT count(DISTINCT (variant_id, item_id)) FROM run_stages WHERE run_id = ${runId})::int AS "itemsPlanned",
      (SELECT count(DISTINCT (variant_id, item_id)) FROM item_results WHERE run_id = ${runId})::int AS "itemsWithResult",
      (SELECT count(*) FILTER (WHERE errored) FROM item_results WHERE run_id = ${runId})::int AS "itemsErrored",
      (SELECT count(*) - count(DISTINCT (variant_id, item_id)) FROM item_results WHERE run_id = ${runId})::int
        + (SELECT count(*) - count(DISTINCT stage_key) FROM stage_results)::int
        + (SELECT count(*) - count(DISTINCT stage_key) FROM stage_failures WHERE run_id = ${runId})::int
        + (SELECT count(*) - count(DISTINCT variant_id) FROM run_summaries WHERE run_id = ${runId})::int AS "duplicatedRows",
      (SELECT count(*) FROM stage_failures WHERE run_id = ${runId})::int AS "stageFailures",
      (SELECT count(*) FROM llm_response_cache)::int AS "storedLlmAnswers"`;
  return rows[0];
}
