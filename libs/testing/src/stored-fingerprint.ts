/**
 * What a run has stored, as one hash: every row (all columns, timestamps included) of its item results, stage
 * failures, summaries and status, every stage result, and every stored LLM answer. Two equal fingerprints taken
 * before and after a stale host came back mean its late writes changed nothing.
 */
import { queryRows, type Db } from '@sqlsweep/db';

export interface StoredFingerprint {
  hash: string;
  rows: { stageResults: number; itemResults: number; stageFailures: number; runSummaries: number; llmAnswers: number };
}

export async function storedFingerprint(db: Db, runId: string): Promise<StoredFingerprint> {
  const rows = await queryRows<{ hash: string; stage_results: number; item_results: number; stage_failures: number; run_summaries: number; llm_answers: number }>(db)`
    SELECT md5(concat_ws('#',
        (SELECT string_agg(t::text, '|' ORDER BY t.stage_key) FROM stage_results t),
        (SELECT string_agg(t::text, '|' ORDER BY t.variant_id, t.item_id, t.created_at) FROM item_results t WHERE t.run_id = ${runId}),
        (SELECT string_agg(t::text, '|' ORDER BY t.stage_key, t.created_at) FROM stage_failures t WHERE t.run_id = ${runId}),
        (SELECT string_agg(t::text, '|' ORDER BY t.variant_id) FROM run_summaries t WHERE t.run_id = ${runId}),
        (SELECT string_agg(t::text, '|' ORDER BY t::text) FROM llm_response_cache t),
        (SELECT t::text FROM runs t WHERE t.id = ${runId}))) AS hash,
      (SELECT count(*) FROM stage_results)::int AS stage_results,
      (SELECT count(*) FROM item_results WHERE run_id = ${runId})::int AS item_results,
      (SELECT count(*) FROM stage_failures WHERE run_id = ${runId})::int AS stage_failures,
      (SELECT count(*) FROM run_summaries WHERE run_id = ${runId})::int AS run_summaries,
      (SELECT count(*) FROM llm_response_cache)::int AS llm_answers`;
  const r = rows[0];
  return { hash: r.hash, rows: { stageResults: r.stage_results, itemResults: r.item_results, stageFailures: r.stage_failures, runSummaries: r.run_summaries, llmAnswers: r.llm_answers } };
}

/** LLM calls a worker process has claimed and not yet stored (claim owners are `host/pid/random`). */
export async function callsClaimedBy(db: Db, pid: number): Promise<number> {
  const rows = await queryRows<{ n: number }>(db)`SELECT count(*)::int AS n FROM llm_cache_claims WHERE owner LIKE ${`%/${pid}/%`}`;
  return rows[0].n;
}
