import { sql, type RawBuilder } from 'kysely';
import { ASYNC_COMMIT, executePrepared, type Db } from './connection';
import { writePlan, type NewRunHeader, type PlannedStage, type PlanTotals, type PlanWriter } from './plan-writer';
import type { RunRow, RunStageRow, VariantRow } from './schema';

export type { NewRunHeader, NewPlanKey, NewVariant, PlannedStage, PlanTotals, PlanWriter, RunEstimate } from './plan-writer';
/** `input_outputs`: the outputs of its inputs by key when they take at most `carriedInputBytes` as stored, else null. */
export type ReadyStage = RunStageRow & { dataset_version_id: number; priority: string; llm_mode: 'online' | 'batch'; input_outputs: Record<string, unknown> | null };

/** How much of its inputs' outputs a ready stage's job carries, so that its worker need not read them. */
export const carriedInputBytes = 16_384;

/**
 * The planned stages matching `where` (over `rs` and `runs`) that have neither a result nor a failure and whose inputs
 * all have results: one row per key. Unfinished stages whose last input has a result are picked out first, without
 * reading their input arrays. Those inputs are then checked from the last to the first. A stage that reads a whole
 * training set lists hundreds of inputs in plan order, and they finish in about that order, so the key checked first
 * is the one most likely to be missing. Before that (in a CASE: Postgres orders a WHERE's conditions as it likes),
 * the input listed after each of `justStored` (keys whose results were just stored) is checked. A training set read
 * as one block of keys per stage kind has its last block stored while the blocks before it are still being stored,
 * in order: the key after the one just stored is then the one missing, where the check from the end went through the
 * whole last block first, for each key stored. The last input is joined rather than tested with `OR EXISTS`, which
 * Postgres answered by hashing every stored key on each lookup. The array is detoasted once per stage (`|| '{}'`
 * behind `OFFSET 0`): each subscript of the stored value would decompress the whole array again.
 */
function readyStagesWhere(where: RawBuilder<unknown>, justStored: string[] = []) {
  return sql<ReadyStage>`
    WITH unfinished AS MATERIALIZED (
      SELECT rs.*, runs.dataset_version_id, runs.priority, runs.llm_mode
      FROM run_stages rs JOIN runs ON runs.id = rs.run_id
        LEFT JOIN stage_results last ON last.stage_key = rs.last_input_key
      WHERE ${where}
        AND NOT EXISTS (SELECT 1 FROM stage_results r WHERE r.stage_key = rs.stage_key)
        AND NOT EXISTS (SELECT 1 FROM stage_failures f WHERE f.run_id = rs.run_id AND f.stage_key = rs.stage_key)
        AND (rs.last_input_key IS NULL OR last.stage_key IS NOT NULL)
    )
    SELECT DISTINCT ON (u.stage_key) u.*,
      (SELECT CASE WHEN sum(pg_column_size(r.output)) <= ${carriedInputBytes} THEN jsonb_object_agg(r.stage_key, r.output) END
         FROM stage_results r WHERE r.stage_key = ANY(u.input_keys)) AS input_outputs
    FROM unfinished u, LATERAL (SELECT u.input_keys || '{}'::text[] AS keys OFFSET 0) detoasted
    WHERE CASE
      WHEN EXISTS (
        SELECT 1 FROM unnest(${justStored}::text[]) k, LATERAL (SELECT array_position(detoasted.keys, k) AS at) stored_at
        WHERE stored_at.at < cardinality(detoasted.keys)
          AND NOT EXISTS (SELECT 1 FROM stage_results r WHERE r.stage_key = detoasted.keys[stored_at.at + 1])) THEN false
      ELSE NOT EXISTS (
        SELECT 1 FROM generate_series(cardinality(detoasted.keys), 1, -1) i
        WHERE NOT EXISTS (SELECT 1 FROM stage_results r WHERE r.stage_key = detoasted.keys[i]))
    END`;
}

/**
 * Writes the item results of the items of running runs whose final stage is one of `stageKeys` (see
 * RunRepository.materializeItemResultsEndingWith), as a query to prepare.
 */
export function itemsEndingWithQuery(db: Db, stageKeys: string[]) {
  return materializeQuery(sql`rs.stage_key = ANY(${stageKeys}::text[]) AND rs.run_id IN (SELECT id FROM runs WHERE status = 'running')`).compile(db);
}

/** The runs `materializeQuery` wrote item results in, each with whether it now has one for every planned (variant, item). */
export type ClosedItems = Array<{ runId: string; allClosed: boolean }>;

/** The dependents lookup every stage job makes, as `executePrepared` runs it (with a generic plan). */
export function readyDependentsQuery(db: Db, stageKeys: string[]) {
  return readyStagesWhere(sql`rs.input_keys && ${stageKeys}::text[] AND runs.status = 'running'`, stageKeys).compile(db);
}

/**
 * Writes the item results of every (run, variant, item) whose final stage matches `finalsOf` (over `rs`, run_stages)
 * and has a result or whose plan holds a failed stage, and that has no item result yet; returns the runs that received
 * rows (ClosedItems). Counts the rows it writes on their runs (`runs.closed_items`) in the same statement, so the
 * count is exact whoever writes. Commits asynchronously, as stage results that cost no call do: item results are
 * derived from stored results, one lost in a Postgres crash is written again when the reconciler re-plans the run, and
 * the run's end, committed durably after them, flushes them with it. So a run's row lock is held for no disk flush.
 */
function materializeQuery(finalsOf: RawBuilder<unknown>) {
  return sql<{ runId: string; allClosed: boolean }>`
    WITH finals AS (
      SELECT rs.run_id, rs.variant_id, rs.item_id, rs.stage_key
      FROM run_stages rs
      WHERE ${finalsOf} AND rs.is_final
        AND NOT EXISTS (SELECT 1 FROM item_results ir WHERE ir.run_id = rs.run_id AND ir.variant_id = rs.variant_id AND ir.item_id = rs.item_id)
    ), item_stages AS (
      SELECT f.run_id, f.variant_id, f.item_id,
        max(f.stage_key) AS final_key,
        sum(r.input_tokens) AS input_tokens, sum(r.output_tokens) AS output_tokens,
        sum(r.cost_usd) AS cost_usd, sum(r.latency_ms) AS latency_ms,
        bool_or(r.simulated) AS simulated,
        min(sf.error) AS failure
      FROM finals f
      JOIN run_stages s ON s.run_id = f.run_id AND s.variant_id = f.variant_id AND s.item_id = f.item_id
      LEFT JOIN stage_results r ON r.stage_key = s.stage_key
      LEFT JOIN stage_failures sf ON sf.run_id = s.run_id AND sf.stage_key = s.stage_key
      GROUP BY f.run_id, f.variant_id, f.item_id
    ), written AS (
      INSERT INTO item_results (run_id, variant_id, item_id, final_stage_key, correct, errored, reason, predicted_sql,
                                difficulty, input_tokens, output_tokens, cost_usd, latency_ms, simulated, metrics, scorer, parse_failed)
      SELECT i.run_id, i.variant_id, i.item_id, i.final_key,
        coalesce((fr.output->>'correct')::boolean, false),
        fr.stage_key IS NULL OR coalesce((fr.output->>'errored')::boolean, false),
        coalesce(fr.output->>'reason', 'stage failed: ' || i.failure),
        fr.output->>'predictedSql', di.difficulty,
        coalesce(i.input_tokens, 0), coalesce(i.output_tokens, 0), coalesce(i.cost_usd, 0), coalesce(i.latency_ms, 0),
        coalesce(i.simulated, false) OR runs.simulated,
        (SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb)
           FROM run_stages s2 JOIN stage_results r2 ON r2.stage_key = s2.stage_key,
                jsonb_each(CASE WHEN jsonb_typeof(r2.output->'metrics') = 'object' THEN r2.output->'metrics' ELSE '{}'::jsonb END) e
          WHERE s2.run_id = i.run_id AND s2.variant_id = i.variant_id AND s2.item_id = i.item_id),
        fr.output->>'scorer',
        coalesce((fr.output->>'parseFailed')::boolean, false)
      FROM item_stages i
      JOIN runs ON runs.id = i.run_id
      LEFT JOIN dataset_items di ON di.version_id = runs.dataset_version_id AND di.item_id = i.item_id -- gone: still closed
      LEFT JOIN stage_results fr ON fr.stage_key = i.final_key
      WHERE fr.stage_key IS NOT NULL OR i.failure IS NOT NULL
      ON CONFLICT DO NOTHING
      RETURNING run_id
    ), added AS (
      SELECT run_id, count(*)::int AS n FROM written GROUP BY run_id
    ), locked AS MATERIALIZED (
      -- In id order: two statements closing items of the same runs never wait on each other crosswise.
      SELECT r.id FROM runs r WHERE r.id IN (SELECT run_id FROM added) ORDER BY r.id FOR NO KEY UPDATE
    )
    UPDATE runs SET closed_items = runs.closed_items + a.n
    FROM added a JOIN locked l ON l.id = a.run_id, ${sql.raw(ASYNC_COMMIT)}
    WHERE runs.id = a.run_id
    RETURNING runs.id AS "runId", runs.closed_items >= runs.item_count * (SELECT count(*) FROM variants v WHERE v.run_id = runs.id) AS "allClosed"`;
}

/** A run's life: its plan, its advancing (ready stages, item results, summaries) and its end (done, failed, cancelled). */
export class RunRepository {
  constructor(private readonly db: Db) {}

  /**
   * Stores a plan given whole (sweep, run, variants and every stage) in one transaction: a run exists completely or
   * not at all. The planner streams instead (`writePlan`); this is for plans made by hand (tests, tools).
   */
  async createRun(input: NewRunHeader & PlanTotals & { reusedStages: number; stages: PlannedStage[] }): Promise<string> {
    const { runId } = await this.writePlan(input, async (writer) => {
      for (let i = 0; i < input.stages.length; i += 2000) await writer.add(input.stages.slice(i, i + 2000));
      return { stageJobs: input.stageJobs, reusedStages: input.reusedStages, estimate: input.estimate };
    });
    return runId!;
  }

  /**
   * Writes a plan chunk by chunk in one transaction (`writePlan`): `fill` adds the stages and returns the run's
   * totals. With `run`, the run is committed whole once `fill` resolves, and nothing of it is kept if `fill` throws or
   * the process dies first; without it (a dry run), only the plan's keys are written, then rolled back.
   */
  async writePlan<T extends PlanTotals>(run: NewRunHeader | undefined, fill: (writer: PlanWriter) => Promise<T>): Promise<{ runId?: string; result: T }> {
    const written = await writePlan(this.db, run, fill);
    // A plan can multiply the table's rows at once; without fresh statistics the planner's row estimates for the
    // per-stage advancing queries are off by orders of magnitude until autovacuum gets round to it.
    if (written.runId) await sql`ANALYZE run_stages`.execute(this.db);
    return written;
  }

  async getRun(runId: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirst();
  }

  async getVariants(runId: string): Promise<VariantRow[]> {
    return this.db.selectFrom('variants').selectAll().where('run_id', '=', runId).orderBy('position').execute();
  }

  /**
   * Stages of a running run whose inputs all have results and which have neither a result nor a failure: one row per
   * key. A run that has ended (done, failed, cancelled) has none: its end is final.
   */
  async readyStages(runId: string): Promise<ReadyStage[]> {
    const { rows } = await readyStagesWhere(sql`rs.run_id = ${runId} AND runs.status = 'running'`).execute(this.db);
    return rows;
  }

  /** Stages of running runs that read any of `stageKeys` and are now ready: one row per key. */
  async readyDependents(stageKeys: string[]): Promise<ReadyStage[]> {
    if (stageKeys.length === 0) return [];
    return executePrepared(this.db, 'ready-dependents', readyDependentsQuery(this.db, stageKeys));
  }

  /**
   * Writes the item results of every (run, variant, item) of these runs whose final stage has a result or whose
   * plan holds a failed stage and that has no item result yet. Idempotent. Returns the runs that received rows.
   */
  async materializeItemResults(runIds: string[]): Promise<string[]> {
    if (runIds.length === 0) return [];
    return (await this.materialize('materialize-runs', sql`rs.run_id = ANY(${runIds}::uuid[])`)).map((r) => r.runId);
  }

  /**
   * The same for the items of running runs whose final stage is one of `stageKeys`, found by key: what stored stage
   * results can finish, without scanning the rest of those runs. Returns the runs that received rows, each with
   * whether it now counts an item result for every planned (variant, item): only those can be closed.
   */
  async materializeItemResultsEndingWith(stageKeys: string[]): Promise<ClosedItems> {
    if (stageKeys.length === 0) return [];
    return executePrepared(this.db, 'materialize-final-keys', itemsEndingWithQuery(this.db, stageKeys));
  }

  /** Prepared: planning `materializeQuery` costs about three times what running it for one item does. */
  private async materialize(statement: string, finalsOf: RawBuilder<unknown>): Promise<ClosedItems> {
    return executePrepared(this.db, statement, materializeQuery(finalsOf).compile(this.db));
  }


  /** Running runs whose plan contains this key. */
  async runningRunsWithKey(stageKey: string): Promise<string[]> {
    const rows = await this.db.selectFrom('run_stages as rs').innerJoin('runs', 'runs.id', 'rs.run_id')
      .select('rs.run_id').distinct().where('rs.stage_key', '=', stageKey).where('runs.status', '=', 'running').execute();
    return rows.map((r) => r.run_id);
  }

  /**
   * Every running run with a cheap mark of its progress (item results and recorded failures, read by index): a mark
   * that has not changed between two looks means the run has not moved in between.
   */
  async runningRunProgress(): Promise<Array<{ runId: string; mark: string }>> {
    const { rows } = await sql<{ runId: string; mark: string }>`
      SELECT r.id AS "runId",
        (SELECT count(*) FROM item_results ir WHERE ir.run_id = r.id) || '/' || (SELECT count(*) FROM stage_failures f WHERE f.run_id = r.id) AS mark
      FROM runs r WHERE r.status = 'running' ORDER BY r.created_at`.execute(this.db);
    return rows;
  }

  async runningRuns(): Promise<string[]> {
    const rows = await this.db.selectFrom('runs').select('id').where('status', '=', 'running').execute();
    return rows.map((r) => r.id);
  }

  async countItemResults(runId: string): Promise<number> {
    const row = await this.db.selectFrom('item_results').select(sql<number>`count(*)`.as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** When every planned item has a result: writes the per-variant summaries and marks the run done (once). */
  async finalizeIfComplete(runId: string): Promise<boolean> {
    // Most calls come before the last item: a lock-free count answers them; the locked re-check below decides.
    const [progress] = await executePrepared(this.db, 'run-missing-items', sql<{ missing: boolean }>`
      SELECT (SELECT count(*) FROM item_results WHERE run_id = r.id) < r.item_count * (SELECT count(*) FROM variants WHERE run_id = r.id) AS missing
      FROM runs r WHERE r.id = ${runId} AND r.status = 'running'`.compile(this.db));
    if (!progress || progress.missing) return false;
    return this.db.transaction().execute(async (tx) => {
      const run = await tx.selectFrom('runs').selectAll().where('id', '=', runId).forUpdate().executeTakeFirst();
      if (!run || run.status !== 'running') return false;
      const variants = await tx.selectFrom('variants').select(sql<number>`count(*)`.as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow();
      const results = await tx.selectFrom('item_results').select(sql<number>`count(*)`.as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow();
      if (Number(results.n) < Number(variants.n) * run.item_count) return false;
      await sql`
        INSERT INTO run_summaries (run_id, variant_id, items, correct, errors, parse_failures, ex, input_tokens, output_tokens, cost_usd, wall_ms, simulated, metrics, scorer)
        SELECT ir.run_id, ir.variant_id, count(*), count(*) FILTER (WHERE ir.correct), count(*) FILTER (WHERE ir.errored),
          count(*) FILTER (WHERE ir.parse_failed),
          100.0 * count(*) FILTER (WHERE ir.correct) / count(*), sum(ir.input_tokens), sum(ir.output_tokens), sum(ir.cost_usd),
          1000 * extract(epoch FROM max(ir.created_at) - ${run.created_at}::timestamptz), bool_or(ir.simulated),
          (SELECT coalesce(jsonb_object_agg(m.key, m.mean), '{}'::jsonb) FROM (
             SELECT e.key, avg((e.value)::text::float8) AS mean FROM item_results ir2, jsonb_each(ir2.metrics) e
             WHERE ir2.run_id = ir.run_id AND ir2.variant_id = ir.variant_id AND jsonb_typeof(e.value) = 'number' GROUP BY e.key) m),
          string_agg(DISTINCT ir.scorer, ',' ORDER BY ir.scorer)
        FROM item_results ir WHERE ir.run_id = ${runId} GROUP BY ir.run_id, ir.variant_id
        ON CONFLICT DO NOTHING`.execute(tx);
      await tx.updateTable('runs').set({ status: 'done', finished_at: new Date() }).where('id', '=', runId).execute();
      return true;
    });
  }

  /**
   * Marks a running run failed when it cannot proceed: items lack a result, yet no stage of its plan is ready or in
   * flight (every stage left waits on inputs that nothing will compute). Decided under the run's row lock, as closing
   * a run is. Returns the reason stored with the run, or undefined when the run is not stuck (or not running).
   */
  async failIfStuck(runId: string): Promise<string | undefined> {
    return this.db.transaction().execute(async (tx) => {
      const run = await tx.selectFrom('runs').select('status').where('id', '=', runId).forUpdate().executeTakeFirst();
      if (run?.status !== 'running') return undefined;
      if ((await readyStagesWhere(sql`rs.run_id = ${runId}`).execute(tx)).rows.length > 0) return undefined;
      const { rows: [n] } = await sql<{ planned: number; finished: number; waiting: number }>`
        SELECT (r.item_count * (SELECT count(*) FROM variants v WHERE v.run_id = r.id))::int AS planned,
          (SELECT count(*) FROM item_results ir WHERE ir.run_id = r.id)::int AS finished,
          (SELECT count(DISTINCT rs.stage_key) FROM run_stages rs WHERE rs.run_id = r.id
             AND NOT EXISTS (SELECT 1 FROM stage_results sr WHERE sr.stage_key = rs.stage_key)
             AND NOT EXISTS (SELECT 1 FROM stage_failures f WHERE f.run_id = rs.run_id AND f.stage_key = rs.stage_key))::int AS waiting
        FROM runs r WHERE r.id = ${runId}`.execute(tx);
      if (n.finished >= n.planned) return undefined;
      const reason = `cannot proceed: ${n.planned - n.finished} of ${n.planned} items have no result and no stage is left that could give them one ` +
        (n.waiting > 0 ? `(${n.waiting} planned stages wait on inputs that no stage of the run computes)` : '(the plan has no unfinished stage for them)');
      await tx.updateTable('runs').set({ status: 'failed', failure_reason: reason, finished_at: new Date() }).where('id', '=', runId).execute();
      return reason;
    });
  }

  /**
   * Marks a running run cancelled. Returns whether it changed, and the stage keys (with role) of the run that have
   * no result yet and that no other running run plans: their queued jobs can be removed without hurting anyone.
   */
  async cancelRun(runId: string): Promise<{ cancelled: boolean; orphanStages: Array<{ stageKey: string; role: string }> }> {
    return this.db.transaction().execute(async (tx) => {
      const updated = await tx.updateTable('runs').set({ status: 'cancelled', finished_at: new Date() })
        .where('id', '=', runId).where('status', '=', 'running').returning('id').executeTakeFirst();
      if (!updated) return { cancelled: false, orphanStages: [] };
      const { rows } = await sql<{ stageKey: string; role: string }>`
        SELECT DISTINCT rs.stage_key AS "stageKey", rs.role FROM run_stages rs
        WHERE rs.run_id = ${runId}
          AND NOT EXISTS (SELECT 1 FROM stage_results sr WHERE sr.stage_key = rs.stage_key)
          AND NOT EXISTS (SELECT 1 FROM run_stages o JOIN runs r ON r.id = o.run_id AND r.status = 'running'
                          WHERE o.stage_key = rs.stage_key AND o.run_id <> rs.run_id)`.execute(tx);
      return { cancelled: true, orphanStages: rows };
    });
  }
}
