import { sql } from 'kysely';
import type { Db } from './connection';

export interface StageKindTotals {
  stage: string; completed: number; inputTokens: number; cachedInputTokens: number; outputTokens: number;
  /** What was paid: answers taken from the response cache (`reused`) are left out. */
  costUsd: number;
  /** Results written in the last `windowSeconds`. */
  recent: number;
}

/** Aggregates for Prometheus, read from Postgres at scrape time. */
export class ApiMetricsRepository {
  constructor(private readonly db: Db) {}

  async stageTotals(windowSeconds: number): Promise<StageKindTotals[]> {
    const { rows } = await sql<StageKindTotals>`
      SELECT stage, count(*)::int AS completed, coalesce(sum(input_tokens), 0)::float8 AS "inputTokens",
        coalesce(sum(cached_input_tokens), 0)::float8 AS "cachedInputTokens", coalesce(sum(output_tokens), 0)::float8 AS "outputTokens",
        coalesce(sum(cost_usd) FILTER (WHERE NOT reused), 0) AS "costUsd",
        count(*) FILTER (WHERE created_at > now() - make_interval(secs => ${windowSeconds}))::int AS recent
      FROM stage_results GROUP BY stage ORDER BY stage`.execute(this.db);
    return rows;
  }

  /** SQL executions that hit the sandbox deadline: gold runs and evaluated predictions with status timeout. */
  async sandboxTimeouts(): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM stage_results
      WHERE output->>'status' = 'timeout' OR output->'predicted'->>'status' = 'timeout'`.execute(this.db);
    return rows[0].n;
  }

  async failedStages(): Promise<Array<{ stage: string; failed: number }>> {
    const { rows } = await sql<{ stage: string; failed: number }>`SELECT stage, count(*)::int AS failed FROM stage_failures GROUP BY stage ORDER BY stage`.execute(this.db);
    return rows;
  }

  async runsByStatus(): Promise<Array<{ status: string; n: number }>> {
    const { rows } = await sql<{ status: string; n: number }>`SELECT status, count(*)::int AS n FROM runs GROUP BY status`.execute(this.db);
    return rows;
  }
}
