import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { sql } from 'kysely';
import type { Db } from './connection';

/** Bytes per stored chunk: large enough that a 1 GB database is 256 rows, small enough to hold one in memory. */
export const DATASET_FILE_CHUNK_BYTES = 4 * 1024 * 1024;

export interface FileToStore { sha256: string; size: number; absPath: string }
export interface VersionStoreSize { versionId: number; files: number; bytes: number; missing: number }

/**
 * Dataset files in Postgres by content: one `dataset_files` row per sha256 and its bytes in chunks. A file is
 * written once, whatever path or version it comes from, in one transaction (the row commits with its chunks, so a
 * stored file is always whole); readers stream it back a chunk at a time.
 */
export class DatasetFileStore {
  constructor(private readonly db: Db) {}

  /**
   * Which of these files are stored. Those found are marked as wanted now (stored_at), so a `gc` running while
   * their version is being registered leaves them alone (see `gc`'s minimum age).
   */
  async storedAmong(sha256s: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < sha256s.length; i += 1000) {
      const rows = await this.db.updateTable('dataset_files').set({ stored_at: sql<Date>`now()` })
        .where('sha256', 'in', sha256s.slice(i, i + 1000)).returning('sha256').execute();
      for (const r of rows) found.add(r.sha256);
    }
    return found;
  }

  async isStored(sha256: string): Promise<boolean> {
    return (await this.db.selectFrom('dataset_files').select('sha256').where('sha256', '=', sha256).executeTakeFirst()) !== undefined;
  }

  /**
   * Stores a file unless its content is stored already (false then). Its bytes are hashed as they are read: a file
   * that changed since it was hashed is refused and nothing is kept. A concurrent put of the same content waits for
   * the first to commit and stores nothing.
   */
  async put(file: FileToStore): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const chunkCount = Math.ceil(file.size / DATASET_FILE_CHUNK_BYTES);
      const inserted = await tx.insertInto('dataset_files').values({ sha256: file.sha256, size: file.size, chunk_count: chunkCount })
        .onConflict((c) => c.column('sha256').doNothing()).returning('sha256').executeTakeFirst();
      if (!inserted) return false;
      const hash = createHash('sha256');
      let idx = 0;
      let bytes = 0;
      for await (const chunk of readChunks(file.absPath)) {
        hash.update(chunk);
        bytes += chunk.length;
        await tx.insertInto('dataset_file_chunks').values({ sha256: file.sha256, idx, data: chunk }).execute();
        idx += 1;
      }
      const actual = hash.digest('hex');
      if (actual !== file.sha256 || bytes !== file.size || idx !== chunkCount) {
        throw new Error(`${file.absPath}: changed while it was being stored (sha256 ${actual.slice(0, 12)}, expected ${file.sha256.slice(0, 12)}); nothing was stored`);
      }
      return true;
    });
  }

  /** A stored file's bytes, in order; the next chunk is read while the caller writes this one (two in memory at most). */
  async *chunks(sha256: string): AsyncIterable<Buffer> {
    const file = await this.db.selectFrom('dataset_files').select('chunk_count').where('sha256', '=', sha256).executeTakeFirst();
    if (!file) throw new Error(`dataset store: no file with sha256 ${sha256}`);
    const read = (idx: number) => this.db.selectFrom('dataset_file_chunks').select('data').where('sha256', '=', sha256).where('idx', '=', idx).executeTakeFirst();
    let next = file.chunk_count > 0 ? read(0) : undefined;
    for (let idx = 0; idx < file.chunk_count; idx++) {
      const row = await next!;
      next = idx + 1 < file.chunk_count ? read(idx + 1) : undefined;
      next?.catch(() => undefined); // awaited on the next turn; a consumer that stops early leaves nothing unhandled
      if (!row) throw new Error(`dataset store: file ${sha256} lacks chunk ${idx} of ${file.chunk_count}`);
      yield row.data;
    }
  }

  /** Per version: files it names, their bytes in the store (a file shared by versions counts in each), files not stored. */
  async versionSizes(): Promise<Map<number, VersionStoreSize>> {
    const { rows } = await sql<{ versionId: number; files: number; bytes: number; missing: number }>`
      SELECT vf.version_id AS "versionId", count(*)::int AS files, coalesce(sum(f.size), 0)::bigint AS bytes,
        count(*) FILTER (WHERE f.sha256 IS NULL)::int AS missing
      FROM dataset_version_files vf LEFT JOIN dataset_files f ON f.sha256 = vf.sha256
      GROUP BY vf.version_id`.execute(this.db);
    return new Map(rows.map((r) => [r.versionId, { ...r, bytes: Number(r.bytes) }]));
  }

  /** Every stored file and its bytes. */
  async totals(): Promise<{ files: number; bytes: number }> {
    const row = await this.db.selectFrom('dataset_files')
      .select([sql<number>`count(*)::int`.as('files'), sql<number>`coalesce(sum(size), 0)::bigint`.as('bytes')]).executeTakeFirstOrThrow();
    return { files: row.files, bytes: Number(row.bytes) };
  }

  /**
   * Removes stored files no version names and not stored or found by a registration in the last `minAgeMs` (one
   * may be about to name them); returns how many and their bytes.
   */
  async gc(opts: { minAgeMs: number }): Promise<{ files: number; bytes: number }> {
    const { rows } = await sql<{ size: number }>`
      DELETE FROM dataset_files f
      WHERE NOT EXISTS (SELECT 1 FROM dataset_version_files vf WHERE vf.sha256 = f.sha256)
        AND f.stored_at <= now() - make_interval(secs => ${opts.minAgeMs / 1000})
      RETURNING f.size`.execute(this.db);
    return { files: rows.length, bytes: rows.reduce((s, r) => s + Number(r.size), 0) };
  }
}

/** A file's bytes in DATASET_FILE_CHUNK_BYTES pieces (the last one shorter). */
async function* readChunks(path: string): AsyncIterable<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of createReadStream(path, { highWaterMark: DATASET_FILE_CHUNK_BYTES }) as AsyncIterable<Buffer>) {
    pending.push(piece);
    pendingBytes += piece.length;
    while (pendingBytes >= DATASET_FILE_CHUNK_BYTES) {
      const all = Buffer.concat(pending);
      yield all.subarray(0, DATASET_FILE_CHUNK_BYTES);
      pending = [all.subarray(DATASET_FILE_CHUNK_BYTES)];
      pendingBytes = pending[0].length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}
