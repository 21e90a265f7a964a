import { sql } from 'kysely';
import type { Db } from './connection';
import { ReportTallies } from './report-tallies';
import { verdictCategorySql } from './verdict-category-sql';

/** One stage kind of a run: what it planned, what the run paid for, and what stage reuse and the response cache saved. */
export interface StageCostRow {
  stage: string;
  planned: number;
  done: number;
  /** Results this run computed and paid for. */
  paidStages: number; paidCalls: number; inputTokens: number; outputTokens: number; costUsd: number;
  /** Results this run took from the LLM response cache: it paid nothing; `cacheSavedUsd` is what those calls cost. */
  cacheStages: number; cacheSavedUsd: number; cacheInputTokens: number; cacheOutputTokens: number;
  /** Results stored by other runs (stage reuse by key): nothing ran; `reusedSavedUsd` is what they cost their runs. */
  reusedStages: number; reusedCalls: number; reusedSavedUsd: number;
}

export interface RunEstimateRow {
  llmCalls: number; inputTokens: number; outputTokens: number; costUsd: number; cacheNamespace: string;
}

export interface CategoryCountRow { variantId: string; category: string; n: number }

export interface ItemOutcomeRow { variantId: string; itemId: string; correct: boolean }

/** One stage kind's progress. */
export interface StageRateRow { stage: string; planned: number; done: number; failed: number }
/** Each stage kind's progress, and how many results this run computed since `windowStart` (for a rate). */
export interface CompletionRates { stages: StageRateRow[]; completedInWindow: number; windowStart: Date; now: Date }

/**
 * The most results the rate counts: when more fell in the window, the window shrinks to the span of the latest ones.
 * Counting every result of a window was O(results in it): 1.4 s for the status of a run that stored 1,000,000 in a
 * few seconds (bench/scale), and more the more hosts a sweep runs on.
 */
export const RATE_SAMPLE_RESULTS = 10_000;

/**
 * Reads for the run page's cost, reuse, verdict categories, paired outcomes and completion rate. No writes; every
 * value is a bound parameter.
 */
export class RunInsightRepository {
  constructor(private readonly db: Db, private readonly tallies = new ReportTallies(db)) {}

  async stageCosts(runId: string): Promise<StageCostRow[]> {
    const { rows } = await sql<StageCostRow>`
      WITH keys AS (SELECT DISTINCT stage, stage_key FROM run_stages WHERE run_id = ${runId})
      SELECT k.stage, count(*)::int AS planned, count(r.stage_key)::int AS done,
        count(*) FILTER (WHERE r.run_id = ${runId} AND NOT r.reused)::int AS "paidStages",
        count(*) FILTER (WHERE r.run_id = ${runId} AND NOT r.reused AND r.input_tokens > 0)::int AS "paidCalls",
        coalesce(sum(r.input_tokens) FILTER (WHERE r.run_id = ${runId} AND NOT r.reused), 0)::float8 AS "inputTokens",
        coalesce(sum(r.output_tokens) FILTER (WHERE r.run_id = ${runId} AND NOT r.reused), 0)::float8 AS "outputTokens",
        coalesce(sum(r.cost_usd) FILTER (WHERE r.run_id = ${runId} AND NOT r.reused), 0)::float8 AS "costUsd",
        count(*) FILTER (WHERE r.run_id = ${runId} AND r.reused)::int AS "cacheStages",
        coalesce(sum(r.cost_usd) FILTER (WHERE r.run_id = ${runId} AND r.reused), 0)::float8 AS "cacheSavedUsd",
        coalesce(sum(r.input_tokens) FILTER (WHERE r.run_id = ${runId} AND r.reused), 0)::float8 AS "cacheInputTokens",
        coalesce(sum(r.output_tokens) FILTER (WHERE r.run_id = ${runId} AND r.reused), 0)::float8 AS "cacheOutputTokens",
        count(*) FILTER (WHERE r.stage_key IS NOT NULL AND r.run_id IS DISTINCT FROM ${runId})::int AS "reusedStages",
        count(*) FILTER (WHERE r.stage_key IS NOT NULL AND r.run_id IS DISTINCT FROM ${runId} AND r.input_tokens > 0)::int AS "reusedCalls",
        coalesce(sum(r.cost_usd) FILTER (WHERE r.run_id IS DISTINCT FROM ${runId}), 0)::float8 AS "reusedSavedUsd"
      FROM keys k LEFT JOIN stage_results r ON r.stage_key = k.stage_key
      GROUP BY k.stage ORDER BY k.stage`.execute(this.db);
    return rows;
  }

  async estimate(runId: string): Promise<RunEstimateRow | undefined> {
    const { rows } = await sql<RunEstimateRow>`
      SELECT estimated_llm_calls AS "llmCalls", estimated_input_tokens::float8 AS "inputTokens", estimated_output_tokens::float8 AS "outputTokens",
        estimated_cost_usd::float8 AS "costUsd", cache_namespace AS "cacheNamespace"
      FROM runs WHERE id = ${runId}`.execute(this.db);
    return rows[0];
  }

  /** Item results per variant and verdict category (verdictCategorySql), from the run's tallies. */
  async categoryCounts(runId: string): Promise<CategoryCountRow[]> {
    const rows = await this.tallies.itemTallies(runId, ['category']);
    return rows.filter((t) => t.items > 0).map((t) => ({ variantId: t.variantId, category: t.key, n: t.items }));
  }

  /** Every scored item of the run under every variant (what paired tests between the run's variants read). */
  async itemOutcomes(runId: string): Promise<ItemOutcomeRow[]> {
    const { rows } = await sql<ItemOutcomeRow>`
      SELECT variant_id AS "variantId", item_id AS "itemId", correct FROM item_results WHERE run_id = ${runId}`.execute(this.db);
    return rows;
  }

  /**
   * Per stage kind: distinct keys planned, with a result and failed (without a result); and the results this run
   * computed since `windowStart`: the later of `windowS` seconds ago and this run's first computed result (so the time
   * before its workers started, or before it was created, is not counted as slow work), or, when more than
   * RATE_SAMPLE_RESULTS fell in that window, the creation of the earliest of the latest RATE_SAMPLE_RESULTS. What an
   * ETA from the observed rate needs. Planned and done come from the run's stage tallies; results are found by
   * creation time (an index), never by scanning the plan (1,000,000 rows in a large sweep).
   */
  async completionRates(runId: string, windowS: number): Promise<CompletionRates> {
    // A result this run computed (run_id) is of a key it plans: the first one is found walking results by time.
    const [tallies, failures, window] = await Promise.all([
      this.tallies.stageTallies(runId),
      sql<{ stage: string; n: number }>`
        SELECT f.stage, count(*)::int AS n FROM stage_failures f
        WHERE f.run_id = ${runId} AND NOT EXISTS (SELECT 1 FROM stage_results r WHERE r.stage_key = f.stage_key) GROUP BY f.stage`.execute(this.db),
      sql<{ windowStart: Date; now: Date }>`
        SELECT greatest(now() - make_interval(secs => ${windowS}),
            (SELECT min(r.created_at) FROM stage_results r WHERE r.run_id = ${runId} AND r.created_at >= run.created_at)) AS "windowStart",
          now() AS now
        FROM runs run WHERE run.id = ${runId}`.execute(this.db),
    ]);
    const w = window.rows[0];
    const windowStart = w?.windowStart ?? new Date();
    const { rows: [recent] } = await sql<{ n: number; earliest: Date | null }>`
      SELECT count(*)::int AS n, min(created_at) AS earliest FROM (
        SELECT sr.created_at FROM stage_results sr
        WHERE sr.created_at >= ${windowStart} AND sr.run_id = ${runId}
        ORDER BY sr.created_at DESC LIMIT ${RATE_SAMPLE_RESULTS}) latest`.execute(this.db);
    const failed = new Map(failures.rows.map((r) => [r.stage, r.n]));
    return {
      stages: tallies.map((t) => ({ stage: t.stage, planned: t.planned, done: t.done, failed: failed.get(t.stage) ?? 0 })),
      completedInWindow: recent?.n ?? 0,
      windowStart: recent && recent.n >= RATE_SAMPLE_RESULTS && recent.earliest ? recent.earliest : windowStart,
      now: w?.now ?? new Date(),
    };
  }
}
