import { sql, type RawBuilder } from 'kysely';
import type { Db } from './connection';
import { verdictCategorySql } from './verdict-category-sql';

export type ItemMatrixMode = 'all' | 'failures' | 'sql-errors' | 'disagree';

export interface ItemMatrixRow { itemId: string; dbId: string; question: string; difficulty: string | null }
export interface ItemMatrixCellRow {
  itemId: string; variantId: string; correct: boolean; errored: boolean; parseFailed: boolean; reason: string; predictedSql: string | null;
}

/** Per item of the run: whether every / some variant got it right, and whether some variant's SQL failed to execute. */
const perItem = (runId: string, q: string | null) => sql`
  SELECT p.item_id, p.all_ok, p.any_ok, p.any_sql_error, di.position, di.db_id, di.question, di.difficulty
  FROM (SELECT ir.item_id, bool_and(ir.correct) AS all_ok, bool_or(ir.correct) AS any_ok,
          bool_or(${verdictCategorySql('ir')} = 'sql-error') AS any_sql_error
        FROM item_results ir WHERE ir.run_id = ${runId} GROUP BY ir.item_id) p
  JOIN runs r ON r.id = ${runId}
  JOIN dataset_items di ON di.version_id = r.dataset_version_id AND di.item_id = p.item_id
  WHERE (${q}::text IS NULL OR strpos(lower(di.question), lower(${q}::text)) > 0 OR strpos(lower(p.item_id), lower(${q}::text)) > 0)`;

const modeSql: Record<ItemMatrixMode, RawBuilder<unknown>> = {
  all: sql`true`,
  failures: sql`NOT m.all_ok`,
  'sql-errors': sql`m.any_sql_error`,
  disagree: sql`(m.any_ok AND NOT m.all_ok)`,
};

/**
 * The items × variants matrix of a run, a page of items at a time. Items are aggregated from the run's item results
 * (the primary key's run_id prefix), the page's cells fetched by primary key (run, variant, item).
 */
export class ItemMatrixRepository {
  constructor(private readonly db: Db) {}

  async page(runId: string, f: { mode: ItemMatrixMode; q?: string; limit: number; offset: number }): Promise<{ rows: ItemMatrixRow[]; counts: Record<ItemMatrixMode, number> }> {
    // One pass over the run's item results: the per-item aggregate is materialized once for the counts and the page.
    const { rows } = await sql<{ counts: Record<ItemMatrixMode, number>; rows: ItemMatrixRow[] }>`
      WITH m AS MATERIALIZED (${perItem(runId, f.q ?? null)})
      SELECT
        (SELECT json_build_object('all', count(*), 'failures', count(*) FILTER (WHERE ${modeSql.failures}),
           'sql-errors', count(*) FILTER (WHERE ${modeSql['sql-errors']}), 'disagree', count(*) FILTER (WHERE ${modeSql.disagree})) FROM m) AS counts,
        (SELECT coalesce(json_agg(json_build_object('itemId', p.item_id, 'dbId', p.db_id, 'question', p.question, 'difficulty', p.difficulty) ORDER BY p.position), '[]'::json)
         FROM (SELECT * FROM m WHERE ${modeSql[f.mode]} ORDER BY m.position LIMIT ${f.limit} OFFSET ${f.offset}) p) AS rows`.execute(this.db);
    return rows[0];
  }

  /** The results of these items under every variant of the run (primary-key lookups). */
  async cells(runId: string, itemIds: string[]): Promise<ItemMatrixCellRow[]> {
    if (itemIds.length === 0) return [];
    const { rows } = await sql<ItemMatrixCellRow>`
      SELECT ir.item_id AS "itemId", ir.variant_id AS "variantId", ir.correct, ir.errored, ir.parse_failed AS "parseFailed",
        ir.reason, ir.predicted_sql AS "predictedSql"
      FROM variants v
      CROSS JOIN unnest(${itemIds}::text[]) AS i(item_id)
      JOIN item_results ir ON ir.run_id = v.run_id AND ir.variant_id = v.id AND ir.item_id = i.item_id
      WHERE v.run_id = ${runId}`.execute(this.db);
    return rows;
  }
}

/**
 * Run ids starting with `prefix` (hex digits, dashes ignored), at most `limit`: a range scan of the primary key, so
 * the 8-character ids the dashboard shows resolve without a table scan.
 */
export async function runIdsWithPrefix(db: Db, prefix: string, limit = 2): Promise<string[]> {
  const hex = prefix.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{1,32}$/.test(hex)) return [];
  const uuid = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM runs WHERE id BETWEEN ${uuid(hex.padEnd(32, '0'))}::uuid AND ${uuid(hex.padEnd(32, 'f'))}::uuid
    ORDER BY id LIMIT ${limit}`.execute(db);
  return rows.map((r) => r.id);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A short id: the first hex digits of a UUID (the dashboard and the CLI show 8), dashes allowed where the UUID has them. */
const ID_PREFIX = /^[0-9a-f][0-9a-f-]{3,35}$/i;
export const isIdPrefix = (value: string): boolean => ID_PREFIX.test(value);

/**
 * The runs `value` names, as the API and the CLI read a run id: a whole UUID names itself (whether such a run exists
 * or not), 4 or more of its first hex digits the runs whose ids start with them (at most `limit`); undefined when
 * `value` is neither.
 */
export async function runsNamedBy(db: Db, value: string, limit = 6): Promise<string[] | undefined> {
  if (UUID.test(value)) return [value.toLowerCase()];
  if (!isIdPrefix(value)) return undefined;
  return runIdsWithPrefix(db, value, limit);
}
