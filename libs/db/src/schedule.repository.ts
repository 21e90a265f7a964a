import { sql, type RawBuilder } from 'kysely';
import type { Db } from './connection';

export interface ScheduleFire { schedule: string; firedAt: Date; cacheNamespace: string; runId: string | null; error: string | null }
/** One (variant, item) present in both runs: correct before (a) and now (b), and the scorer of each verdict. */
export interface PairedItemRow { variantKey: string; label: string; itemId: string; a: boolean; b: boolean; scorerA: string | null; scorerB: string | null }
export interface StageChangeRow { stage: string; compared: number; changed: number }
/** One paired (variant, item) stage whose stored output differs between two runs. */
export interface ChangedStageItemRow { stage: string; itemId: string; variantKey: string; label: string; previousVariantId: string; variantId: string }
export interface ScheduledRunToCheck { runId: string; schedule: string; firedAt: Date; simulated: boolean }
export interface PreviousScheduledRun { runId: string; firedAt: Date }
export interface RegressionCheckRow {
  runId: string; schedule: string; previousRunId: string | null; regressed: boolean;
  variants: unknown; changedStages: unknown; checkedAt: Date;
}
export interface RegressionAlertRow {
  id: number; runId: string; schedule: string; payload: unknown; webhookUrl: string | null; attempts: number;
  lastError: string | null; deliveredAt: Date | null; createdAt: Date;
}
export interface ScheduleRunRow {
  runId: string; schedule: string; firedAt: Date; status: string; simulated: boolean; createdAt: Date; finishedAt: Date | null;
  regressed: boolean | null; previousRunId: string | null; variants: unknown;
  /** Per variant of the run, from run_summaries once it finished (empty before); `scorer` names the scorer of `ex`. */
  summaries: Array<{ variantKey: string; label: string; items: number; correct: number; ex: number; scorer: string | null }>;
}

/** Schedule fires, regression checks and alerts (tables of migration 20261122071000_schedules). */
export class ScheduleRepository {
  constructor(private readonly db: Db) {}

  /**
   * Claims a fire before anything is planned. Returns the stored row: `claimed` is true when this call inserted it;
   * otherwise the fire was seen before and `runId` says whether it got as far as a run.
   */
  async claimFire(schedule: string, firedAt: Date, cacheNamespace: string): Promise<ScheduleFire & { claimed: boolean }> {
    const inserted = await sql<{ schedule: string }>`
      INSERT INTO schedule_fires (schedule, fired_at, cache_namespace) VALUES (${schedule}, ${firedAt}, ${cacheNamespace})
      ON CONFLICT DO NOTHING RETURNING schedule`.execute(this.db);
    const { rows } = await sql<ScheduleFire>`
      SELECT schedule, fired_at AS "firedAt", cache_namespace AS "cacheNamespace", run_id AS "runId", error
      FROM schedule_fires WHERE schedule = ${schedule} AND fired_at = ${firedAt}`.execute(this.db);
    return { ...rows[0], claimed: inserted.rows.length === 1 };
  }

  async attachRun(schedule: string, firedAt: Date, runId: string): Promise<void> {
    await sql`UPDATE schedule_fires SET run_id = ${runId}, error = NULL WHERE schedule = ${schedule} AND fired_at = ${firedAt}`.execute(this.db);
  }

  async recordFireError(schedule: string, firedAt: Date, error: string): Promise<void> {
    await sql`UPDATE schedule_fires SET error = ${error} WHERE schedule = ${schedule} AND fired_at = ${firedAt}`.execute(this.db);
  }

  async firesOf(schedule: string): Promise<ScheduleFire[]> {
    const { rows } = await sql<ScheduleFire>`
      SELECT schedule, fired_at AS "firedAt", cache_namespace AS "cacheNamespace", run_id AS "runId", error
      FROM schedule_fires WHERE schedule = ${schedule} ORDER BY fired_at`.execute(this.db);
    return rows;
  }

  /**
   * Finished scheduled runs that have no regression check yet, oldest fire first. A run waits while an earlier
   * fire of its schedule is still running, so it is compared with the night before it, not an older one.
   */
  async finishedRunsWithoutCheck(): Promise<ScheduledRunToCheck[]> {
    const { rows } = await sql<ScheduledRunToCheck>`
      SELECT f.run_id AS "runId", f.schedule, f.fired_at AS "firedAt", runs.simulated
      FROM schedule_fires f JOIN runs ON runs.id = f.run_id
      WHERE runs.status = 'done' AND NOT EXISTS (SELECT 1 FROM regression_checks c WHERE c.run_id = f.run_id)
        AND NOT EXISTS (
          SELECT 1 FROM schedule_fires e JOIN runs er ON er.id = e.run_id
          WHERE e.schedule = f.schedule AND e.fired_at < f.fired_at AND er.status = 'running')
      ORDER BY f.fired_at`.execute(this.db);
    return rows;
  }

  /** The latest finished run of the same schedule fired before `firedAt`. */
  async previousFinishedRun(schedule: string, firedAt: Date): Promise<PreviousScheduledRun | undefined> {
    const { rows } = await sql<PreviousScheduledRun>`
      SELECT f.run_id AS "runId", f.fired_at AS "firedAt"
      FROM schedule_fires f JOIN runs ON runs.id = f.run_id
      WHERE f.schedule = ${schedule} AND f.fired_at < ${firedAt} AND runs.status = 'done'
      ORDER BY f.fired_at DESC LIMIT 1`.execute(this.db);
    return rows[0];
  }

  /** Items scored in both runs under the same variant key. */
  async pairedItems(previousRunId: string, runId: string): Promise<PairedItemRow[]> {
    const { rows } = await sql<PairedItemRow>`
      SELECT vb.variant_key AS "variantKey", vb.label, rb.item_id AS "itemId", ra.correct AS a, rb.correct AS b,
        ra.scorer AS "scorerA", rb.scorer AS "scorerB"
      FROM item_results rb
      JOIN variants vb ON vb.id = rb.variant_id
      JOIN variants va ON va.run_id = ${previousRunId} AND va.variant_key = vb.variant_key
      JOIN item_results ra ON ra.run_id = ${previousRunId} AND ra.variant_id = va.id AND ra.item_id = rb.item_id
      WHERE rb.run_id = ${runId}
      ORDER BY vb.position, rb.item_id`.execute(this.db);
    return rows;
  }

  /** Per stage name: how many paired (variant, item) stages were compared and how many stored outputs differ. */
  async stageChanges(previousRunId: string, runId: string): Promise<StageChangeRow[]> {
    const { rows } = await sql<StageChangeRow>`
      SELECT b.stage, count(*)::int AS compared,
        -- The evaluate stage's VES timings (timing, metrics.ves) are measurements of that night's machine, not an
        -- answer: left out, an unchanged night changes no stage.
        count(*) FILTER (WHERE ${answerOf(sql.ref('ra.output'))} IS DISTINCT FROM ${answerOf(sql.ref('rb.output'))})::int AS changed
      ${pairedStages(previousRunId, runId)}
      GROUP BY b.stage ORDER BY b.stage`.execute(this.db);
    return rows;
  }

  /**
   * The paired (variant, item) stages whose stored outputs differ between the two runs (the rows `stageChanges`
   * counts), in stage then item order, at most `limit`; with the variant of each night for links.
   */
  async changedStageItems(previousRunId: string, runId: string, limit = 5000): Promise<ChangedStageItemRow[]> {
    const { rows } = await sql<ChangedStageItemRow>`
      SELECT b.stage, b.item_id AS "itemId", vb.variant_key AS "variantKey", vb.label, va.id AS "previousVariantId", vb.id AS "variantId"
      ${pairedStages(previousRunId, runId)} AND ${answerOf(sql.ref('ra.output'))} IS DISTINCT FROM ${answerOf(sql.ref('rb.output'))}
      ORDER BY b.stage, b.item_id, vb.position LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /**
   * Stores a check and, when it found a regression, its alert, in one transaction. Written once per run: returns
   * false (and writes nothing) when another checker stored this run's check first.
   */
  async storeCheck(check: { runId: string; schedule: string; previousRunId: string | null; regressed: boolean; variants: unknown; changedStages: unknown },
    alert?: { payload: unknown; webhookUrl: string | null }): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const { rows } = await sql<{ run_id: string }>`
        INSERT INTO regression_checks (run_id, schedule, previous_run_id, regressed, variants, changed_stages)
        VALUES (${check.runId}, ${check.schedule}, ${check.previousRunId}, ${check.regressed}, ${JSON.stringify(check.variants)}::jsonb, ${JSON.stringify(check.changedStages)}::jsonb)
        ON CONFLICT DO NOTHING RETURNING run_id`.execute(tx);
      if (rows.length === 0) return false;
      if (alert) {
        await sql`INSERT INTO regression_alerts (run_id, schedule, payload, webhook_url)
          VALUES (${check.runId}, ${check.schedule}, ${JSON.stringify(alert.payload)}::jsonb, ${alert.webhookUrl})`.execute(tx);
      }
      return true;
    });
  }

  /**
   * Leases undelivered alerts that have a webhook for `leaseMs`, so two checkers never post the same alert at
   * the same time; an alert whose delivery failed is leased again once its lease ends.
   */
  async leaseUndeliveredAlerts(leaseMs: number, limit = 20): Promise<RegressionAlertRow[]> {
    const { rows } = await sql<RegressionAlertRow>`
      UPDATE regression_alerts SET lease_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = attempts + 1
      WHERE id IN (
        SELECT id FROM regression_alerts
        WHERE delivered_at IS NULL AND webhook_url IS NOT NULL AND (lease_until IS NULL OR lease_until < now())
        ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING id, run_id AS "runId", schedule, payload, webhook_url AS "webhookUrl", attempts, last_error AS "lastError",
        delivered_at AS "deliveredAt", created_at AS "createdAt"`.execute(this.db);
    return rows;
  }

  async markDelivered(alertId: number): Promise<void> {
    await sql`UPDATE regression_alerts SET delivered_at = now(), last_error = NULL WHERE id = ${alertId}`.execute(this.db);
  }

  async markDeliveryFailed(alertId: number, error: string, retryAfterMs: number): Promise<void> {
    await sql`UPDATE regression_alerts SET last_error = ${error}, lease_until = now() + make_interval(secs => ${retryAfterMs / 1000})
      WHERE id = ${alertId}`.execute(this.db);
  }

  /** Newest first; `schedule` narrows to one schedule. For the dashboard and the API. */
  async listAlerts(opts: { schedule?: string; limit?: number } = {}): Promise<RegressionAlertRow[]> {
    const { rows } = await sql<RegressionAlertRow>`
      SELECT id, run_id AS "runId", schedule, payload, webhook_url AS "webhookUrl", attempts, last_error AS "lastError",
        delivered_at AS "deliveredAt", created_at AS "createdAt"
      FROM regression_alerts WHERE (${opts.schedule ?? null}::text IS NULL OR schedule = ${opts.schedule ?? null})
      ORDER BY id DESC LIMIT ${opts.limit ?? 100}`.execute(this.db);
    return rows;
  }

  async getCheck(runId: string): Promise<RegressionCheckRow | undefined> {
    const { rows } = await sql<RegressionCheckRow>`
      SELECT run_id AS "runId", schedule, previous_run_id AS "previousRunId", regressed, variants,
        changed_stages AS "changedStages", checked_at AS "checkedAt"
      FROM regression_checks WHERE run_id = ${runId}`.execute(this.db);
    return rows[0];
  }

  /** The runs of a schedule over time with their check (null until checked): the dashboard's trend view. */
  async scheduleRuns(schedule: string, limit = 100): Promise<ScheduleRunRow[]> {
    const { rows } = await sql<ScheduleRunRow>`
      SELECT f.run_id AS "runId", f.schedule, f.fired_at AS "firedAt", runs.status, runs.simulated,
        runs.created_at AS "createdAt", runs.finished_at AS "finishedAt",
        c.regressed, c.previous_run_id AS "previousRunId", c.variants,
        coalesce((SELECT jsonb_agg(jsonb_build_object('variantKey', v.variant_key, 'label', v.label, 'items', s.items,
            'correct', s.correct, 'ex', s.ex, 'scorer', s.scorer) ORDER BY v.position)
          FROM run_summaries s JOIN variants v ON v.id = s.variant_id WHERE s.run_id = f.run_id), '[]'::jsonb) AS summaries
      FROM schedule_fires f JOIN runs ON runs.id = f.run_id
      LEFT JOIN regression_checks c ON c.run_id = f.run_id
      WHERE f.schedule = ${schedule}
      ORDER BY f.fired_at DESC LIMIT ${limit}`.execute(this.db);
    return rows;
  }
}

/**
 * The (variant, item, stage) rows present in both runs, joined by variant key: `a`/`ra` the previous run's stage and
 * stored result, `b`/`rb` this run's, `va`/`vb` the variants; ends in the WHERE on this run, so callers may add `AND ...`.
 */
function pairedStages(previousRunId: string, runId: string) {
  return sql`FROM run_stages b
      JOIN variants vb ON vb.id = b.variant_id
      JOIN variants va ON va.run_id = ${previousRunId} AND va.variant_key = vb.variant_key
      JOIN run_stages a ON a.run_id = ${previousRunId} AND a.variant_id = va.id AND a.item_id = b.item_id AND a.stage = b.stage
      LEFT JOIN stage_results ra ON ra.stage_key = a.stage_key
      LEFT JOIN stage_results rb ON rb.stage_key = b.stage_key
      WHERE b.run_id = ${runId}`;
}

/** A stored stage output without the evaluate stage's VES measurements; any output that is not an object as it is. */
function answerOf(output: RawBuilder<unknown>) {
  return sql`(CASE WHEN jsonb_typeof(${output}) = 'object' THEN (${output} - 'timing') #- '{metrics,ves}' ELSE ${output} END)`;
}
