import { sql } from 'kysely';
import type { Db } from './connection';

export interface StageResultGcFigures {
  /** Stage results no stored run's plan (run_stages) names. */
  results: number;
  /** Their size as stored (pg_column_size of each row: heap tuple with its TOASTed values compressed; no indexes). */
  bytes: number;
}

export interface StageResultGcTotals {
  /** Every stage result stored, and the table's total size on disk (heap, TOAST and indexes). */
  results: number;
  tableBytes: number;
}

/**
 * Stage results that no stored run references: results of runs that were deleted (their plans went with them), of
 * plans written and rolled back after a worker stored a result, or of runs whose stages were all replanned under
 * other keys. A result is referenced when any run_stages row, of a run in any state, holds its key; item results
 * name only keys of their own run's plan, so they are covered.
 *
 * Safe against planning at the same time. A plan decides that a stored result is reused (and enqueues no job for its
 * stage) inside its own transaction, after it has inserted that chunk's run_stages rows (PlanWriter.add: rows first,
 * then the lookup). Every batch of `removeUnreferenced` takes `LOCK TABLE run_stages IN SHARE MODE` first: that waits
 * for every transaction that has inserted plan rows and is not yet committed or rolled back, and keeps new plan rows
 * out until the batch commits. Its delete, a statement started after the lock was granted, therefore sees every plan
 * that could rely on a result, and no plan can start relying on one it is deleting. Workers are not held up: they
 * write stage_results, never run_stages. A dry run takes no lock: its count may be off by what plans in flight
 * reference.
 */
export class StageResultGc {
  constructor(private readonly db: Db) {}

  async totals(): Promise<StageResultGcTotals> {
    const { rows: [r] } = await sql<{ results: string; tableBytes: string }>`
      SELECT (SELECT count(*) FROM stage_results) AS results, pg_total_relation_size('stage_results') AS "tableBytes"`.execute(this.db);
    return { results: Number(r.results), tableBytes: Number(r.tableBytes) };
  }

  /** What `removeUnreferenced` would remove now. */
  async unreferenced(): Promise<StageResultGcFigures> {
    const { rows: [r] } = await sql<{ results: string; bytes: string }>`
      SELECT count(*) AS results, coalesce(sum(pg_column_size(sr.*)), 0) AS bytes FROM stage_results sr
      WHERE NOT EXISTS (SELECT 1 FROM run_stages rs WHERE rs.stage_key = sr.stage_key)`.execute(this.db);
    return { results: Number(r.results), bytes: Number(r.bytes) };
  }

  /**
   * Deletes unreferenced stage results in batches of `batchSize` keys (in key order, each batch its own short
   * transaction under the lock described above, so planning waits at most one batch). Postgres reuses the space freed
   * after a vacuum; it returns it to the file system only on VACUUM FULL.
   */
  async removeUnreferenced(opts: { batchSize?: number; onBatch?: (done: StageResultGcFigures) => void } = {}): Promise<StageResultGcFigures> {
    const batchSize = opts.batchSize ?? 5000;
    const done: StageResultGcFigures = { results: 0, bytes: 0 };
    let after = '';
    for (;;) {
      const rows = await this.db.transaction().execute(async (tx) => {
        await sql`LOCK TABLE run_stages IN SHARE MODE`.execute(tx);
        const { rows: deleted } = await sql<{ stage_key: string; bytes: number }>`
          DELETE FROM stage_results d WHERE d.stage_key IN (
            SELECT sr.stage_key FROM stage_results sr
            WHERE sr.stage_key > ${after} AND NOT EXISTS (SELECT 1 FROM run_stages rs WHERE rs.stage_key = sr.stage_key)
            ORDER BY sr.stage_key LIMIT ${batchSize})
          RETURNING d.stage_key, pg_column_size(d.*) AS bytes`.execute(tx);
        return deleted;
      });
      if (rows.length === 0) return done;
      done.results += rows.length;
      done.bytes += rows.reduce((n, r) => n + Number(r.bytes), 0);
      after = rows.reduce((m, r) => (r.stage_key > m ? r.stage_key : m), after);
      opts.onBatch?.({ ...done });
      if (rows.length < batchSize) return done;
    }
  }
}
