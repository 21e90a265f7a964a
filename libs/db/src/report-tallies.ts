import { sql } from 'kysely';
import type { Db } from './connection';
import { verdictCategorySql } from './verdict-category-sql';

export interface StageTallyRow { stage: string; planned: number; done: number; paidCostUsd: number }
export interface ItemTallyRow {
  variantId: string; dim: 'all' | 'difficulty' | 'category' | 'scorer' | 'metric'; key: string;
  items: number; correct: number; errors: number; parseFailures: number; inputTokens: number; outputTokens: number;
  costUsd: number; latencyMs: number; simulated: boolean; metricSum: number;
}

/**
 * A run's progress and scores as tallies (run_stage_tallies, run_item_tallies), brought up to date on read from the
 * rows created since the last refresh, so that a run of 1,000,000 planned stages and 100,000 item results is not
 * counted again on every request. The write path is not touched: stage and item results only gain an index entry by
 * creation time.
 *
 * The watermark. Every stage and item result row gets `created_at = now()`, its transaction's start time. A refresh
 * takes W = (the earliest start of a client transaction open in this database, or the clock if earlier) minus one second:
 * every row created before W belongs to a transaction that has ended, so all of them that exist are visible, and no
 * row created before W can appear later. The rows created in [previous W, W) are added to the tallies and W becomes
 * the run's watermark (run_tally_marks), under that row's lock, so concurrent refreshes never count a row twice. A
 * long transaction open in the database (an idle one included) holds the watermark back: reports then lag, they never
 * miscount. pg_stat_activity shows other roles' transaction starts only to a superuser or a member of
 * pg_read_all_stats: every sqlsweep process must use the database as one role (as they do, with one DATABASE_URL), or
 * the role reading reports must be granted pg_read_all_stats. The first refresh of a run counts its committed plan once (planned keys per stage kind) and every result
 * before W. Readers add what was created since the watermark, counted on the spot (an index range over recent rows),
 * so a report is exact as of its read, not as of the last refresh.
 *
 * Approximation: `paidCostUsd` adds the cost of results this run paid for when they are created; a paid write that
 * later takes over a result first stored as a response-cache reuse (StageRepository.saveResults) is not re-counted.
 * The cost report (RunInsightRepository.stageCosts) reads stage_results directly and stays exact.
 */
export class ReportTallies {
  /** Refreshes in flight per run in this process: concurrent readers of one run share one. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** When this process last refreshed each run (ms since the epoch). */
  private readonly refreshedAt = new Map<string, number>();

  /**
   * `refreshEveryMs`: a run refreshed by this process more recently is not refreshed again. Reads stay exact (they
   * add everything since the watermark); refreshing only keeps that tail short, so a page polled many times a second
   * does not write the tallies each time.
   */
  constructor(private readonly db: Db, private readonly refreshEveryMs = 2000) {}

  /** Brings the run's tallies up to date (see the class comment). */
  refresh(runId: string): Promise<void> {
    const running = this.inFlight.get(runId);
    if (running) return running;
    if (Date.now() - (this.refreshedAt.get(runId) ?? 0) < this.refreshEveryMs) return Promise.resolve();
    const p = this.refreshNow(runId)
      .then((counted) => {
        if (!counted) return; // no such run (yet): the next read looks again
        if (this.refreshedAt.size > 1000) this.refreshedAt.clear();
        this.refreshedAt.set(runId, Date.now());
      })
      .finally(() => this.inFlight.delete(runId));
    this.inFlight.set(runId, p);
    return p;
  }

  /**
   * Before a read: the first read of a run in this process waits for the refresh (it may count the run's plan), later
   * ones start it and go on without waiting, as a read is exact without it (it adds the tail since the watermark).
   * So a poll that falls on a refresh after a burst of results does not wait for the burst to be counted. A read that
   * did not wait and finds no tallies (another process's `forget` dropped them) waits for the refresh and reads again.
   */
  private async freshRead<T>(runId: string, read: () => Promise<T[]>): Promise<T[]> {
    if (!this.refreshedAt.has(runId)) {
      await this.refresh(runId);
      return read();
    }
    this.refresh(runId).catch(() => undefined); // a failed refresh is tried again by the next read
    const rows = await read();
    if (rows.length > 0) return rows;
    await this.refresh(runId);
    return read();
  }

  /** Per stage kind: the stored tallies plus the results created since their watermark (counted now, not stored). */
  async stageTallies(runId: string): Promise<StageTallyRow[]> {
    // The tallies and their watermark in one statement: the tail below starts exactly where these stop.
    const rows = await this.freshRead(runId, async () => (await sql<StageTallyRow & { watermark: Date }>`
      SELECT t.stage, t.planned, t.done, t.paid_cost_usd AS "paidCostUsd", m.watermark
      FROM run_tally_marks m JOIN run_stage_tallies t ON t.run_id = m.run_id WHERE m.run_id = ${runId} ORDER BY t.stage`.execute(this.db)).rows);
    if (rows.length === 0) return [];
    const { rows: tail } = await stageResultsSince(runId, rows[0].watermark, null).execute(this.db);
    const add = new Map(tail.map((t) => [t.stage, t]));
    return rows.map(({ watermark: _w, ...t }) => ({ ...t, done: t.done + (add.get(t.stage)?.n ?? 0), paidCostUsd: t.paidCostUsd + (add.get(t.stage)?.paid ?? 0) }));
  }

  /** Per variant and dimension: the stored tallies plus the item results created since their watermark. */
  async itemTallies(runId: string, dims: ItemTallyRow['dim'][]): Promise<ItemTallyRow[]> {
    const rows = await this.freshRead(runId, async () => (await sql<ItemTallyRow & { watermark: Date | null }>`
      SELECT m.watermark, t.variant_id AS "variantId", t.dim, t.key, t.items, t.correct, t.errors, t.parse_failures AS "parseFailures",
        t.input_tokens AS "inputTokens", t.output_tokens AS "outputTokens", t.cost_usd AS "costUsd", t.latency_ms AS "latencyMs", t.simulated,
        t.metric_sum AS "metricSum"
      FROM run_tally_marks m LEFT JOIN run_item_tallies t ON t.run_id = m.run_id AND t.dim = ANY(${dims}::text[])
      WHERE m.run_id = ${runId} ORDER BY t.variant_id, t.dim, t.key`.execute(this.db)).rows);
    if (rows.length === 0) return [];
    const { rows: tail } = await sql<ItemTallyRow>`
      SELECT variant_id AS "variantId", dim, key, items, correct, errors, parse_failures AS "parseFailures", input_tokens AS "inputTokens",
        output_tokens AS "outputTokens", cost_usd AS "costUsd", latency_ms AS "latencyMs", simulated, metric_sum AS "metricSum"
      FROM (${itemResultsSince(runId, rows[0].watermark, null)}) d WHERE dim = ANY(${dims}::text[])`.execute(this.db);
    const merged = new Map<string, ItemTallyRow>();
    for (const { watermark: _w, ...t } of rows) if (t.variantId) merged.set(`${t.variantId}\u0000${t.dim}\u0000${t.key}`, t);
    for (const t of tail) {
      const id = `${t.variantId}\u0000${t.dim}\u0000${t.key}`;
      const m = merged.get(id);
      merged.set(id, !m ? t : {
        ...m, items: m.items + t.items, correct: m.correct + t.correct, errors: m.errors + t.errors, parseFailures: m.parseFailures + t.parseFailures,
        inputTokens: m.inputTokens + t.inputTokens, outputTokens: m.outputTokens + t.outputTokens, costUsd: m.costUsd + t.costUsd,
        latencyMs: m.latencyMs + t.latencyMs, simulated: m.simulated || t.simulated, metricSum: m.metricSum + t.metricSum,
      });
    }
    return [...merged.values()];
  }

  /**
   * Drops a run's tallies, so that the next refresh (in every process, within `refreshEveryMs`) counts it again from
   * its rows. sqlsweep never changes a stored item or stage result; this is for a repair made to them in place.
   */
  async forget(runId: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await sql`DELETE FROM run_tally_marks WHERE run_id = ${runId}`.execute(tx);
      await sql`DELETE FROM run_stage_tallies WHERE run_id = ${runId}`.execute(tx);
      await sql`DELETE FROM run_item_tallies WHERE run_id = ${runId}`.execute(tx);
    });
    this.refreshedAt.delete(runId);
  }

  /** False when there is no such run. */
  private async refreshNow(runId: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const { rows: [clock] } = await sql<{ t: Date }>`SELECT clock_timestamp() AS t`.execute(tx);
      const { rows: [w] } = await sql<{ watermark: Date }>`
        SELECT least(${clock.t}::timestamptz, coalesce(min(xact_start), ${clock.t}::timestamptz)) - interval '1 second' AS watermark
        FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`.execute(tx);
      const watermark = w.watermark;
      let mark = await this.lockMark(tx, runId);
      if (!mark) {
        const inserted = await sql<{ run_id: string }>`
          INSERT INTO run_tally_marks (run_id, watermark) SELECT id, ${watermark}::timestamptz FROM runs WHERE id = ${runId}
          ON CONFLICT (run_id) DO NOTHING RETURNING run_id`.execute(tx);
        if (inserted.rows.length === 1) {
          await this.countPlan(tx, runId, watermark);
          await this.addItems(tx, runId, null, watermark);
          return true;
        }
        mark = await this.lockMark(tx, runId); // another session counted it first; go on from its watermark
        if (!mark) return false; // no such run
      }
      if (watermark <= mark.watermark) return true;
      await this.addStageResults(tx, runId, mark.watermark, watermark);
      await this.addItems(tx, runId, mark.watermark, watermark);
      await sql`UPDATE run_tally_marks SET watermark = ${watermark}::timestamptz, refreshed_at = now() WHERE run_id = ${runId}`.execute(tx);
      return true;
    });
  }

  private async lockMark(tx: Db, runId: string): Promise<{ watermark: Date } | undefined> {
    const { rows } = await sql<{ watermark: Date }>`SELECT watermark FROM run_tally_marks WHERE run_id = ${runId} FOR UPDATE`.execute(tx);
    return rows[0];
  }

  /** Planned keys per stage kind, with those that have a result created before `until`. */
  private async countPlan(tx: Db, runId: string, until: Date): Promise<void> {
    await sql`
      INSERT INTO run_stage_tallies (run_id, stage, planned, done, paid_cost_usd)
      SELECT ${runId}::uuid, k.stage, count(*), count(r.stage_key) FILTER (WHERE r.created_at < ${until}::timestamptz),
        coalesce(sum(r.cost_usd) FILTER (WHERE r.created_at < ${until}::timestamptz AND r.run_id = ${runId}::uuid AND NOT r.reused), 0)
      FROM (SELECT stage, stage_key FROM run_stages WHERE run_id = ${runId}::uuid GROUP BY stage, stage_key) k
      LEFT JOIN stage_results r ON r.stage_key = k.stage_key
      GROUP BY k.stage`.execute(tx);
  }

  /** Results created in [from, until) whose key the run plans, added to its stage tallies. */
  private async addStageResults(tx: Db, runId: string, from: Date, until: Date): Promise<void> {
    await sql`
      WITH d AS (${stageResultsSince(runId, from, until)})
      UPDATE run_stage_tallies t SET done = t.done + d.n, paid_cost_usd = t.paid_cost_usd + d.paid
      FROM d WHERE t.run_id = ${runId}::uuid AND t.stage = d.stage`.execute(tx);
  }

  /** Item results of the run created in [from, until) (from null: since the start), added per variant and dimension. */
  private async addItems(tx: Db, runId: string, from: Date | null, until: Date): Promise<void> {
    await sql`
      INSERT INTO run_item_tallies AS t (run_id, variant_id, dim, key, items, correct, errors, parse_failures, input_tokens, output_tokens, cost_usd, latency_ms, simulated, metric_sum)
      SELECT ${runId}::uuid, d.* FROM (${itemResultsSince(runId, from, until)}) d
      ON CONFLICT (run_id, variant_id, dim, key) DO UPDATE SET
        items = t.items + excluded.items, correct = t.correct + excluded.correct, errors = t.errors + excluded.errors,
        parse_failures = t.parse_failures + excluded.parse_failures, input_tokens = t.input_tokens + excluded.input_tokens,
        output_tokens = t.output_tokens + excluded.output_tokens, cost_usd = t.cost_usd + excluded.cost_usd,
        latency_ms = t.latency_ms + excluded.latency_ms, simulated = t.simulated OR excluded.simulated, metric_sum = t.metric_sum + excluded.metric_sum`.execute(tx);
  }
}

/** Per stage kind, the results created in [from, until) (until null: up to now) whose key the run plans: distinct keys, and what this run paid for them. */
function stageResultsSince(runId: string, from: Date, until: Date | null) {
  return sql<{ stage: string; n: number; paid: number }>`
    SELECT stage, count(*)::int AS n, coalesce(sum(paid), 0)::float8 AS paid FROM (
      SELECT DISTINCT rs.stage, sr.stage_key, CASE WHEN sr.run_id = ${runId}::uuid AND NOT sr.reused THEN sr.cost_usd ELSE 0 END AS paid
      FROM stage_results sr JOIN run_stages rs ON rs.stage_key = sr.stage_key AND rs.run_id = ${runId}::uuid
      WHERE sr.created_at >= ${from}::timestamptz AND (${until}::timestamptz IS NULL OR sr.created_at < ${until}::timestamptz)
    ) fresh GROUP BY stage`;
}

/**
 * The run's item results created in [from, until) (null bounds: open), aggregated per variant along each dimension:
 * rows (variant_id, dim, key, items, correct, errors, parse_failures, input_tokens, output_tokens, cost_usd, latency_ms,
 * simulated, metric_sum).
 */
function itemResultsSince(runId: string, from: Date | null, until: Date | null) {
  const measures = sql`count(*)::int AS items, count(*) FILTER (WHERE correct)::int AS correct, count(*) FILTER (WHERE errored)::int AS errors,
    count(*) FILTER (WHERE parse_failed)::int AS parse_failures, coalesce(sum(input_tokens), 0)::float8 AS input_tokens,
    coalesce(sum(output_tokens), 0)::float8 AS output_tokens, coalesce(sum(cost_usd), 0)::float8 AS cost_usd,
    coalesce(sum(latency_ms), 0)::float8 AS latency_ms, bool_or(simulated) AS simulated, 0::float8 AS metric_sum`;
  return sql`
    WITH src AS MATERIALIZED (
      SELECT * FROM item_results ir
      WHERE ir.run_id = ${runId}::uuid
        AND (${from}::timestamptz IS NULL OR ir.created_at >= ${from}::timestamptz)
        AND (${until}::timestamptz IS NULL OR ir.created_at < ${until}::timestamptz)
    )
    SELECT variant_id, 'all' AS dim, '' AS key, ${measures} FROM src GROUP BY variant_id
    UNION ALL SELECT variant_id, 'difficulty', coalesce(difficulty, 'unknown'), ${measures} FROM src GROUP BY 1, 3
    UNION ALL SELECT variant_id, 'category', ${verdictCategorySql('src')}, ${measures} FROM src GROUP BY 1, 3
    UNION ALL SELECT variant_id, 'scorer', scorer, ${measures} FROM src WHERE scorer IS NOT NULL GROUP BY 1, 3
    UNION ALL SELECT src.variant_id, 'metric', e.key, count(*)::int, 0, 0, 0, 0, 0, 0, 0, false, sum((e.value)::text::float8)
      FROM src, jsonb_each(src.metrics) e WHERE jsonb_typeof(e.value) = 'number' GROUP BY 1, 3`;
}
