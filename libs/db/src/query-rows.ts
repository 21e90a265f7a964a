import { sql } from 'kysely';
import type { Db } from './connection';

/**
 * The rows of a raw SQL read, for the tests and benches that check stored state across tables (counts with FILTER,
 * sub-selects) where no repository method fits, without importing Kysely themselves:
 * `await queryRows<{ n: number }>(db)\`SELECT count(*)::int AS n FROM item_results WHERE run_id = ${runId}\``.
 * Interpolated values are bound as parameters, never spliced into the SQL text.
 */
export function queryRows<R>(db: Db): (query: TemplateStringsArray, ...values: unknown[]) => Promise<R[]> {
  return async (query, ...values) => (await sql<R>(query, ...values).execute(db)).rows;
}
