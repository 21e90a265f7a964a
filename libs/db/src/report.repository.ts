import { sql, type RawBuilder } from 'kysely';
import type { Db } from './connection';
import type { RunStatus } from './schema';
import { ReportTallies } from './report-tallies';
import { RunInsightRepository } from './run-insight.repository';
import { verdictCategorySql } from './verdict-category-sql';

/** Sortable item-result columns, mapped to SQL; the API validates against the keys, this maps to fixed SQL. */
const itemSortSql = {
  item_id: sql`di.position`,
  variant: sql`v.position`,
  correct: sql`ir.correct`,
  difficulty: sql`ir.difficulty`,
  cost_usd: sql`ir.cost_usd`,
  latency_ms: sql`ir.latency_ms`,
  input_tokens: sql`ir.input_tokens`,
  output_tokens: sql`ir.output_tokens`,
} as const;
export type ItemSortColumn = keyof typeof itemSortSql;

export interface ItemResultFilter {
  variantId?: string; itemId?: string; correct?: boolean; errored?: boolean; parseFailed?: boolean; category?: string; difficulty?: string; dbId?: string; q?: string;
  sort: ItemSortColumn; order: 'asc' | 'desc'; limit: number; offset: number;
}

export interface ItemResultView {
  runId: string; variantId: string; variantLabel: string; itemId: string; dbId: string; question: string;
  difficulty: string | null; correct: boolean; errored: boolean; reason: string; predictedSql: string | null;
  inputTokens: number; outputTokens: number; costUsd: number; latencyMs: number; simulated: boolean; metrics: Record<string, unknown>;
  /** The named scorer of the verdict (`bird-ex@2`); null when the item's stages failed before it was scored. */
  scorer: string | null;
  /** The final answer held no SQL: a parse failure, counted apart from wrong SQL. */
  parseFailed: boolean;
  /** correct, wrong-result, sql-error, no-sql or pipeline-error (verdictCategorySql). */
  category: 'correct' | 'wrong-result' | 'sql-error' | 'no-sql' | 'pipeline-error';
}

export interface RunListRow {
  id: string; sweepId: string; sweepName: string; datasetVersionId: number; status: RunStatus;
  priority: string; itemCount: number; variantCount: number; stageJobs: number; reusedStages: number; simulated: boolean;
  createdAt: Date; finishedAt: Date | null; failureReason: string | null;
}

export interface VariantScoreRow {
  variantId: string; items: number; correct: number; errors: number;
  /** Items whose final answer held no SQL (not correct, not errored). */
  parseFailures: number;
  inputTokens: number; outputTokens: number;
  costUsd: number; meanLatencyMs: number; simulated: boolean;
  /** The scorers of the variant's item results, comma-separated (one in practice); null when none names one. */
  scorer: string | null;
}
export interface DifficultyScoreRow { variantId: string; difficulty: string; items: number; correct: number }
/** Mean of one numeric per-item metric (stage outputs' `metrics`, e.g. schema-linking recall) over a variant's items. */
export interface VariantMetricRow { variantId: string; metric: string; mean: number; items: number }

export interface StageTraceRow {
  stage: string; stageKey: string; role: string; output: unknown; trace: unknown; failure: string | null;
  inputTokens: number | null; cachedInputTokens: number | null; outputTokens: number | null; costUsd: number | null;
  latencyMs: number | null; simulated: boolean | null; createdAt: Date | null;
  /** paid (this run's call), cache (this run took the answer from the response cache), reused (another run's result); null without a result. */
  costSource?: 'paid' | 'cache' | 'reused' | null;
}

export interface StageProgress { stage: string; planned: number; done: number; failed: number }

export interface PairedOutcomeRow {
  itemId: string; difficulty: string | null; a: boolean; b: boolean;
  /** Whether each side's final answer held no SQL (a parse failure; then that side is not correct). */
  parseFailedA: boolean; parseFailedB: boolean;
}

export interface ExportRow {
  variantId: string; variantLabel: string; itemId: string; position: number; dbId: string; question: string;
  goldSql: string; difficulty: string | null; correct: boolean; errored: boolean; reason: string; predictedSql: string | null;
  /** The named scorer of `correct` (`bird-ex@2`); null for results stored before scorers were named. */
  scorer: string | null;
  /** The final answer held no SQL: a parse failure, counted apart from wrong SQL. */
  parseFailed: boolean;
  inputTokens: number; outputTokens: number; costUsd: number; latencyMs: number; simulated: boolean;
}

const runListSelect = sql`
  SELECT r.id, r.sweep_id AS "sweepId", s.name AS "sweepName", r.dataset_version_id AS "datasetVersionId", r.status,
    r.priority, r.item_count AS "itemCount", (SELECT count(*)::int FROM variants v WHERE v.run_id = r.id) AS "variantCount",
    r.stage_jobs AS "stageJobs", r.reused_stages AS "reusedStages", r.simulated, r.created_at AS "createdAt", r.finished_at AS "finishedAt",
    r.failure_reason AS "failureReason"
  FROM runs r JOIN sweeps s ON s.id = r.sweep_id`;

/**
 * Reads over what runs stored (runs, variants, item and stage results), for the reports that the CLI and the API
 * both show. No writes. Every value reaches Postgres as a bound parameter.
 */
export class ReportRepository {
  /** The run page's cost, reuse, category and rate reads, over the same database. */
  readonly insight: RunInsightRepository;
  /** Progress and scores kept as tallies brought up to date on read (a run's 1,000,000 stages are not counted per request). */
  readonly tallies: ReportTallies;

  constructor(private readonly db: Db) {
    this.tallies = new ReportTallies(db);
    this.insight = new RunInsightRepository(db, this.tallies);
  }

  async sweeps(limit: number, offset: number, sweepId?: string) {
    const { rows } = await sql<{ id: string; name: string; source: string; configHash: string; config: unknown; createdAt: Date; runIds: string[] | null }>`
      SELECT s.id, s.name, s.source, s.config_hash AS "configHash", s.config, s.created_at AS "createdAt",
        (SELECT array_agg(r.id ORDER BY r.created_at) FROM runs r WHERE r.sweep_id = s.id) AS "runIds"
      FROM sweeps s WHERE (${sweepId ?? null}::uuid IS NULL OR s.id = ${sweepId ?? null}::uuid)
      ORDER BY s.created_at DESC, s.id LIMIT ${limit} OFFSET ${offset}`.execute(this.db);
    return rows.map((r) => ({ ...r, runIds: r.runIds ?? [] }));
  }

  async runs(filter: { status?: string; sweepId?: string; limit: number }): Promise<RunListRow[]> {
    const { rows } = await sql<RunListRow>`${runListSelect}
      WHERE (${filter.status ?? null}::text IS NULL OR r.status = ${filter.status ?? null})
        AND (${filter.sweepId ?? null}::uuid IS NULL OR r.sweep_id = ${filter.sweepId ?? null}::uuid)
      ORDER BY r.created_at DESC, r.id LIMIT ${filter.limit}`.execute(this.db);
    return rows;
  }

  async run(runId: string): Promise<RunListRow | undefined> {
    const { rows } = await sql<RunListRow>`${runListSelect} WHERE r.id = ${runId}`.execute(this.db);
    return rows[0];
  }

  /**
   * Item results so far, what this run itself spent (calls it paid: results stored by other runs and answers it took
   * from the response cache cost it nothing), and the first and last result times.
   */
  async runProgress(runId: string): Promise<{ itemsDone: number; costUsd: number; firstAt: Date | null; lastAt: Date | null }> {
    const [items, stages, { rows: [span] }] = await Promise.all([
      this.tallies.itemTallies(runId, ['all']), this.tallies.stageTallies(runId),
      sql<{ firstAt: Date | null; lastAt: Date | null }>`
        SELECT (SELECT min(created_at) FROM item_results WHERE run_id = ${runId}) AS "firstAt",
          (SELECT max(created_at) FROM item_results WHERE run_id = ${runId}) AS "lastAt"`.execute(this.db),
    ]);
    return {
      itemsDone: items.reduce((n, t) => n + t.items, 0), costUsd: stages.reduce((n, t) => n + t.paidCostUsd, 0),
      firstAt: span.firstAt, lastAt: span.lastAt,
    };
  }

  async variants(runId: string) {
    return this.db.selectFrom('variants').selectAll().where('run_id', '=', runId).orderBy('position').execute();
  }

  /** Scores per variant from the item results present now (a running run gets partial scores), read from the run's tallies. */
  async variantScores(runId: string): Promise<{ scores: VariantScoreRow[]; byDifficulty: DifficultyScoreRow[]; metrics: VariantMetricRow[] }> {
    const rows = await this.tallies.itemTallies(runId, ['all', 'difficulty', 'scorer', 'metric']);
    const scorers = new Map<string, string[]>();
    for (const t of rows) if (t.dim === 'scorer' && t.items > 0) scorers.set(t.variantId, [...(scorers.get(t.variantId) ?? []), t.key]);
    const scores = rows.filter((t) => t.dim === 'all' && t.items > 0).map((t): VariantScoreRow => ({
      variantId: t.variantId, items: t.items, correct: t.correct, errors: t.errors, parseFailures: t.parseFailures,
      inputTokens: t.inputTokens, outputTokens: t.outputTokens, costUsd: t.costUsd, meanLatencyMs: t.latencyMs / t.items,
      simulated: t.simulated, scorer: scorers.get(t.variantId)?.sort().join(',') ?? null,
    }));
    const byDifficulty = rows.filter((t) => t.dim === 'difficulty' && t.items > 0)
      .map((t) => ({ variantId: t.variantId, difficulty: t.key, items: t.items, correct: t.correct }))
      .sort((a, b) => (a.difficulty < b.difficulty ? -1 : a.difficulty > b.difficulty ? 1 : 0));
    const metrics = rows.filter((t) => t.dim === 'metric' && t.items > 0)
      .map((t) => ({ variantId: t.variantId, metric: t.key, mean: t.metricSum / t.items, items: t.items }))
      .sort((a, b) => (a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0));
    return { scores, byDifficulty, metrics };
  }

  async itemResults(runId: string, f: ItemResultFilter): Promise<{ items: ItemResultView[]; total: number }> {
    const where = sql`ir.run_id = ${runId}
      AND (${f.variantId ?? null}::uuid IS NULL OR ir.variant_id = ${f.variantId ?? null}::uuid)
      AND (${f.itemId ?? null}::text IS NULL OR ir.item_id = ${f.itemId ?? null}::text)
      AND (${f.correct ?? null}::boolean IS NULL OR ir.correct = ${f.correct ?? null}::boolean)
      AND (${f.errored ?? null}::boolean IS NULL OR ir.errored = ${f.errored ?? null}::boolean)
      AND (${f.parseFailed ?? null}::boolean IS NULL OR ir.parse_failed = ${f.parseFailed ?? null}::boolean)
      AND (${f.category ?? null}::text IS NULL OR ${verdictCategorySql('ir')} = ${f.category ?? null}::text)
      AND (${f.difficulty ?? null}::text IS NULL OR ir.difficulty = ${f.difficulty ?? null}::text)
      AND (${f.dbId ?? null}::text IS NULL OR di.db_id = ${f.dbId ?? null}::text)
      AND (${f.q ?? null}::text IS NULL OR strpos(lower(di.question), lower(${f.q ?? null}::text)) > 0 OR strpos(lower(ir.item_id), lower(${f.q ?? null}::text)) > 0)`;
    const from = sql`FROM item_results ir
      JOIN runs r ON r.id = ir.run_id
      JOIN variants v ON v.id = ir.variant_id
      JOIN dataset_items di ON di.version_id = r.dataset_version_id AND di.item_id = ir.item_id`;
    const order: RawBuilder<unknown> = f.order === 'desc' ? sql`DESC` : sql`ASC`;
    const sortColumn = itemSortSql[f.sort];
    if (!sortColumn) throw new Error(`unknown sort column ${String(f.sort)}`);
    // Unfiltered but for the variant, the total is the tallies' (counting 100,000 joined rows per page costs more than the page).
    const unfiltered = [f.itemId, f.correct, f.errored, f.parseFailed, f.category, f.difficulty, f.dbId, f.q].every((v) => v === undefined);
    const total = unfiltered
      ? this.tallies.itemTallies(runId, ['all']).then((t) => t.filter((r) => !f.variantId || r.variantId === f.variantId).reduce((n, r) => n + r.items, 0))
      : sql<{ n: number }>`SELECT count(*)::int AS n ${from} WHERE ${where}`.execute(this.db).then((r) => r.rows[0].n);
    const columns = sql`ir.run_id AS "runId", ir.variant_id AS "variantId", v.label AS "variantLabel", ir.item_id AS "itemId",
      di.db_id AS "dbId", di.question, ir.difficulty, ir.correct, ir.errored, ir.reason, ir.predicted_sql AS "predictedSql",
      ir.input_tokens AS "inputTokens", ir.output_tokens AS "outputTokens", ir.cost_usd AS "costUsd",
      ir.latency_ms AS "latencyMs", ir.simulated, ir.metrics, ir.scorer, ir.parse_failed AS "parseFailed",
      ${verdictCategorySql('ir')} AS category`;
    // In dataset order (the default), a page walks the items by position and probes each one's results, so it reads
    // about as many rows as it shows, where joining every result and sorting them read the run's 100,000. Not for one
    // item or a text search: those find few rows, which the join reads by key.
    const walk = f.sort === 'item_id' && f.itemId === undefined && f.q === undefined;
    const page = walk
      ? sql<ItemResultView & { variantPosition?: number }>`
        SELECT x.* FROM (
          SELECT di.item_id, di.db_id, di.question, di.position FROM dataset_items di
          WHERE di.version_id = (SELECT dataset_version_id FROM runs WHERE id = ${runId}) ORDER BY di.position ${order} OFFSET 0
        ) di CROSS JOIN LATERAL (
          SELECT ${columns}, v.position AS "variantPosition" FROM item_results ir JOIN variants v ON v.id = ir.variant_id
          WHERE ir.item_id = di.item_id AND ${where}
        ) x
        ORDER BY di.position ${order}, x."variantPosition"
        LIMIT ${f.limit} OFFSET ${f.offset}`.execute(this.db).then((r) => r.rows.map(({ variantPosition: _p, ...row }) => row))
      : sql<ItemResultView>`
        SELECT ${columns} ${from} WHERE ${where}
        ORDER BY ${sortColumn} ${order} NULLS LAST, di.position, v.position
        LIMIT ${f.limit} OFFSET ${f.offset}`.execute(this.db).then((r) => r.rows);
    const [items, count] = await Promise.all([page, total]);
    return { items, total: count };
  }

  /** The name of the dataset a run is over (any version of it). */
  async datasetNameOfRun(runId: string): Promise<string | undefined> {
    const { rows } = await sql<{ name: string }>`
      SELECT d.name FROM runs r JOIN dataset_versions v ON v.id = r.dataset_version_id JOIN datasets d ON d.id = v.dataset_id
      WHERE r.id = ${runId}`.execute(this.db);
    return rows[0]?.name;
  }

  async datasetItemOfRun(runId: string, itemId: string) {
    const { rows } = await sql<{ itemId: string; dbId: string; question: string; evidence: string | null; goldSql: string; difficulty: string | null }>`
      SELECT di.item_id AS "itemId", di.db_id AS "dbId", di.question, di.evidence, di.gold_sql AS "goldSql", di.difficulty
      FROM runs r JOIN dataset_items di ON di.version_id = r.dataset_version_id
      WHERE r.id = ${runId} AND di.item_id = ${itemId}`.execute(this.db);
    return rows[0];
  }

  /** What re-running an item's queries needs: its database (path in the dataset folder, sha256), the gold SQL, the prediction and the dataset format. */
  async itemExecution(runId: string, variantId: string, itemId: string) {
    const { rows } = await sql<{
      dbId: string; replicaPath: string | null; checksum: string | null; datasetName: string; contentHash: string; sourcePath: string; goldSql: string;
      format: 'spider' | 'bird' | 'minibench'; predictedSql: string | null; hasResult: boolean; simulated: boolean;
    }>`
      SELECT di.db_id AS "dbId", dd.replica_path AS "replicaPath", dd.checksum, ds.name AS "datasetName", dv.content_hash AS "contentHash",
        dv.source_path AS "sourcePath", di.gold_sql AS "goldSql", dv.format,
        ir.predicted_sql AS "predictedSql", ir.item_id IS NOT NULL AS "hasResult", coalesce(ir.simulated, r.simulated) AS simulated
      FROM runs r
      JOIN dataset_versions dv ON dv.id = r.dataset_version_id
      JOIN datasets ds ON ds.id = dv.dataset_id
      JOIN dataset_items di ON di.version_id = r.dataset_version_id AND di.item_id = ${itemId}
      JOIN variants v ON v.run_id = r.id AND v.id = ${variantId}
      LEFT JOIN dataset_databases dd ON dd.version_id = di.version_id AND dd.db_id = di.db_id
      LEFT JOIN item_results ir ON ir.run_id = r.id AND ir.variant_id = v.id AND ir.item_id = di.item_id
      WHERE r.id = ${runId}`.execute(this.db);
    return rows[0];
  }

  /** Every planned stage of one (variant, item) in plan order, with its result or failure if any. */
  async stageTraces(runId: string, variantId: string, itemId: string): Promise<StageTraceRow[]> {
    const { rows } = await sql<StageTraceRow>`
      SELECT rs.stage, rs.stage_key AS "stageKey", rs.role, sr.output, sr.trace, sf.error AS failure,
        sr.input_tokens AS "inputTokens", sr.cached_input_tokens AS "cachedInputTokens", sr.output_tokens AS "outputTokens",
        sr.cost_usd AS "costUsd", sr.latency_ms AS "latencyMs", sr.simulated, sr.created_at AS "createdAt",
        CASE WHEN sr.stage_key IS NULL THEN NULL WHEN sr.run_id IS DISTINCT FROM rs.run_id THEN 'reused' WHEN sr.reused THEN 'cache' ELSE 'paid' END AS "costSource"
      FROM run_stages rs
      LEFT JOIN stage_results sr ON sr.stage_key = rs.stage_key
      LEFT JOIN stage_failures sf ON sf.run_id = rs.run_id AND sf.stage_key = rs.stage_key
      WHERE rs.run_id = ${runId} AND rs.variant_id = ${variantId} AND rs.item_id = ${itemId}
      ORDER BY rs.is_final, sr.created_at NULLS LAST, rs.stage`.execute(this.db);
    return rows;
  }

  /** Items scored under both sides, each with its correctness under A and B. */
  async pairedOutcomes(a: { runId: string; variantId: string }, b: { runId: string; variantId: string }): Promise<PairedOutcomeRow[]> {
    const { rows } = await sql<PairedOutcomeRow>`
      SELECT ra.item_id AS "itemId", coalesce(ra.difficulty, rb.difficulty) AS difficulty, ra.correct AS a, rb.correct AS b,
        ra.parse_failed AS "parseFailedA", rb.parse_failed AS "parseFailedB"
      FROM item_results ra JOIN item_results rb ON rb.item_id = ra.item_id AND rb.run_id = ${b.runId} AND rb.variant_id = ${b.variantId}
      WHERE ra.run_id = ${a.runId} AND ra.variant_id = ${a.variantId}
      ORDER BY ra.item_id`.execute(this.db);
    return rows;
  }

  /**
   * Per variant of the run other than `bestVariantId`: the items both scored, and those only the best (A) and only
   * the variant (B) got right. Counted in SQL: the paired tests depend on these counts alone.
   */
  async pairedCountsAgainst(runId: string, bestVariantId: string): Promise<Array<{ variantId: string; n: number; onlyA: number; onlyB: number }>> {
    const { rows } = await sql<{ variantId: string; n: number; onlyA: number; onlyB: number }>`
      SELECT o.variant_id AS "variantId", count(*)::int AS n,
        count(*) FILTER (WHERE b.correct AND NOT o.correct)::int AS "onlyA", count(*) FILTER (WHERE o.correct AND NOT b.correct)::int AS "onlyB"
      FROM item_results b JOIN item_results o ON o.run_id = b.run_id AND o.item_id = b.item_id AND o.variant_id <> b.variant_id
      WHERE b.run_id = ${runId} AND b.variant_id = ${bestVariantId} GROUP BY o.variant_id`.execute(this.db);
    return rows;
  }

  /** Rows to export, in dataset order then variant order. */
  async exportRows(runId: string, variantId?: string): Promise<ExportRow[]> {
    const { rows } = await sql<ExportRow>`
      SELECT ir.variant_id AS "variantId", v.label AS "variantLabel", ir.item_id AS "itemId", di.position, di.db_id AS "dbId",
        di.question, di.gold_sql AS "goldSql", ir.difficulty, ir.correct, ir.errored, ir.reason, ir.predicted_sql AS "predictedSql", ir.scorer,
        ir.parse_failed AS "parseFailed", ir.input_tokens AS "inputTokens", ir.output_tokens AS "outputTokens", ir.cost_usd AS "costUsd", ir.latency_ms AS "latencyMs", ir.simulated
      FROM item_results ir JOIN runs r ON r.id = ir.run_id JOIN variants v ON v.id = ir.variant_id
      JOIN dataset_items di ON di.version_id = r.dataset_version_id AND di.item_id = ir.item_id
      WHERE ir.run_id = ${runId} AND (${variantId ?? null}::uuid IS NULL OR ir.variant_id = ${variantId ?? null}::uuid)
      ORDER BY di.position, v.position`.execute(this.db);
    return rows;
  }

  /**
   * What this run itself paid for: the calls of the stages whose results it computed, each once. Results stored by
   * other runs, and answers this run took from the response cache (`reused`), cost it nothing.
   */
  async spend(runId: string): Promise<{ llmCalls: number; inputTokens: number; outputTokens: number; costUsd: number }> {
    const { rows } = await sql<{ llmCalls: number; inputTokens: number; outputTokens: number; costUsd: number }>`
      SELECT count(*) FILTER (WHERE r.input_tokens > 0)::int AS "llmCalls", coalesce(sum(r.input_tokens), 0)::bigint AS "inputTokens",
        coalesce(sum(r.output_tokens), 0)::bigint AS "outputTokens", coalesce(sum(r.cost_usd), 0)::float8 AS "costUsd"
      FROM stage_results r WHERE r.run_id = ${runId} AND NOT r.reused`.execute(this.db);
    return rows[0];
  }

  /** Distinct keys planned, with a result, and failed, per stage kind: the run's stage tallies and its recorded failures. */
  async stageProgress(runId: string): Promise<StageProgress[]> {
    const [tallies, failed] = await Promise.all([this.tallies.stageTallies(runId), this.failedStages(runId)]);
    return tallies.map((t) => ({ stage: t.stage, planned: t.planned, done: t.done, failed: failed.get(t.stage)?.all ?? 0 }));
  }

  /** Failed keys per stage kind of the run (its failures are few; read by the run's key prefix): all, and those without a result. */
  async failedStages(runId: string): Promise<Map<string, { all: number; withoutResult: number }>> {
    const { rows } = await sql<{ stage: string; all: number; withoutResult: number }>`
      SELECT f.stage, count(*)::int AS "all",
        count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM stage_results r WHERE r.stage_key = f.stage_key))::int AS "withoutResult"
      FROM stage_failures f WHERE f.run_id = ${runId} GROUP BY f.stage`.execute(this.db);
    return new Map(rows.map((r) => [r.stage, { all: r.all, withoutResult: r.withoutResult }]));
  }
}
