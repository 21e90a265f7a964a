import { sql } from 'kysely';
import type { Db } from './connection';
import type { DatasetFileLocation } from './schema';

export interface VersionStoreSize { versionId: number; files: number; bytes: number; missing: number }

/**
 * The dataset store's record in Postgres, whichever backend holds the bytes: one `dataset_files` row per stored
 * sha256 with its location, and the version manifest (`dataset_version_files`). A backend sees only its own rows,
 * so listing and gc mean the same for both.
 */
export class DatasetFileIndex {
  constructor(private readonly db: Db, readonly location: DatasetFileLocation) {}

  /** Which of these files this backend holds; those found are marked as wanted now (stored_at), for gc's minimum age. */
  async storedAmong(sha256s: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < sha256s.length; i += 1000) {
      const rows = await this.db.updateTable('dataset_files').set({ stored_at: sql<Date>`now()` })
        .where('sha256', 'in', sha256s.slice(i, i + 1000)).where('location', '=', this.location).returning('sha256').execute();
      for (const r of rows) found.add(r.sha256);
    }
    return found;
  }

  async isRecorded(sha256: string): Promise<boolean> {
    const row = await this.db.selectFrom('dataset_files').select('sha256').where('sha256', '=', sha256).where('location', '=', this.location).executeTakeFirst();
    return row !== undefined;
  }

  /** Per version: files it names, their bytes in this backend (a file shared by versions counts in each), files it lacks. */
  async versionSizes(): Promise<Map<number, VersionStoreSize>> {
    const { rows } = await sql<VersionStoreSize>`
      SELECT vf.version_id AS "versionId", count(*)::int AS files, coalesce(sum(f.size), 0)::bigint AS bytes,
        count(*) FILTER (WHERE f.sha256 IS NULL)::int AS missing
      FROM dataset_version_files vf LEFT JOIN dataset_files f ON f.sha256 = vf.sha256 AND f.location = ${this.location}
      GROUP BY vf.version_id`.execute(this.db);
    return new Map(rows.map((r) => [r.versionId, { ...r, bytes: Number(r.bytes) }]));
  }

  /** Every file this backend holds and their bytes. */
  async totals(): Promise<{ files: number; bytes: number }> {
    const row = await this.db.selectFrom('dataset_files').where('location', '=', this.location)
      .select([sql<number>`count(*)::int`.as('files'), sql<number>`coalesce(sum(size), 0)::bigint`.as('bytes')]).executeTakeFirstOrThrow();
    return { files: row.files, bytes: Number(row.bytes) };
  }

  /**
   * Forgets this backend's files no version names and not stored or found by a registration in the last
   * `minAgeMs` (one may be about to name them); returns them (their bytes are the backend's to remove).
   */
  async removeUnreferenced(opts: { minAgeMs: number }): Promise<{ sha256: string; size: number }[]> {
    const { rows } = await sql<{ sha256: string; size: string }>`
      DELETE FROM dataset_files f
      WHERE f.location = ${this.location}
        AND NOT EXISTS (SELECT 1 FROM dataset_version_files vf WHERE vf.sha256 = f.sha256)
        AND f.stored_at <= now() - make_interval(secs => ${opts.minAgeMs / 1000})
      RETURNING f.sha256, f.size`.execute(this.db);
    return rows.map((r) => ({ sha256: r.sha256, size: Number(r.size) }));
  }
}
