import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { sql } from 'kysely';
import type { Db } from './connection';
import { DatasetFileIndex, type VersionStoreSize } from './dataset-file-index';

export type { VersionStoreSize } from './dataset-file-index';

/** Bytes per stored chunk: large enough that a 1 GB database is 256 rows, small enough to hold one in memory. */
export const DATASET_FILE_CHUNK_BYTES = 4 * 1024 * 1024;

export interface FileToStore { sha256: string; size: number; absPath: string }

/**
 * Dataset files by content (sha256), wherever the bytes live: Postgres (`PostgresDatasetFileStore`, the default)
 * or an S3-compatible object store (`S3DatasetFileStore`). Either way Postgres keeps the record of what is stored
 * and which files each version names, so listing and gc work the same.
 */
export interface DatasetFileStore {
  /** Where the bytes are, for messages: `postgres` or `s3://bucket/prefix`. */
  readonly where: string;
  /**
   * Which of these files are stored. Those found are marked as wanted now (stored_at), so a `gc` running while
   * their version is being registered leaves them alone (see `gc`'s minimum age).
   */
  storedAmong(sha256s: string[]): Promise<Set<string>>;
  isStored(sha256: string): Promise<boolean>;
  /**
   * Stores a file unless its content is stored already (false then). Its bytes are hashed as they are read: a file
   * that changed since it was hashed is refused and nothing is kept. A concurrent put of the same content stores nothing.
   */
  put(file: FileToStore): Promise<boolean>;
  /** A stored file's bytes, in order; throws when it is not stored. */
  chunks(sha256: string): AsyncIterable<Buffer>;
  /** Per version: files it names, their bytes in the store (a file shared by versions counts in each), files not stored. */
  versionSizes(): Promise<Map<number, VersionStoreSize>>;
  /** Every stored file and its bytes. */
  totals(): Promise<{ files: number; bytes: number }>;
  /**
   * Removes stored files no version names and not stored or found by a registration in the last `minAgeMs` (one
   * may be about to name them); returns how many and their bytes.
   */
  gc(opts: { minAgeMs: number }): Promise<{ files: number; bytes: number }>;
  /** Lets go of the backend's own connections (the S3 client's sockets), where it has any. */
  close?(): void;
}

/**
 * Dataset files in Postgres by content: one `dataset_files` row per sha256 and its bytes in chunks. A file is
 * written once, whatever path or version it comes from, in one transaction (the row commits with its chunks, so a
 * stored file is always whole); readers stream it back a chunk at a time.
 */
export class PostgresDatasetFileStore implements DatasetFileStore {
  readonly where = 'postgres';
  private readonly index: DatasetFileIndex;

  constructor(private readonly db: Db) {
    this.index = new DatasetFileIndex(db, 'postgres');
  }

  storedAmong(sha256s: string[]): Promise<Set<string>> {
    return this.index.storedAmong(sha256s);
  }

  isStored(sha256: string): Promise<boolean> {
    return this.index.isRecorded(sha256);
  }

  /** A file recorded in the object store (an earlier S3 configuration) is taken over: its bytes are written here. */
  async put(file: FileToStore): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const chunkCount = Math.ceil(file.size / DATASET_FILE_CHUNK_BYTES);
      const inserted = await tx.insertInto('dataset_files').values({ sha256: file.sha256, size: file.size, chunk_count: chunkCount })
        .onConflict((c) => c.column('sha256').doNothing()).returning('sha256').executeTakeFirst();
      if (!inserted) {
        const row = await tx.selectFrom('dataset_files').select('location').where('sha256', '=', file.sha256).forUpdate().executeTakeFirstOrThrow();
        if (row.location === 'postgres') return false;
        await tx.updateTable('dataset_files').set({ location: 'postgres', chunk_count: chunkCount, stored_at: sql<Date>`now()` })
          .where('sha256', '=', file.sha256).execute();
      }
      const hash = createHash('sha256');
      let idx = 0;
      let bytes = 0;
      for await (const chunk of readChunks(file.absPath, DATASET_FILE_CHUNK_BYTES)) {
        hash.update(chunk);
        bytes += chunk.length;
        await tx.insertInto('dataset_file_chunks').values({ sha256: file.sha256, idx, data: chunk }).execute();
        idx += 1;
      }
      assertUnchanged(file, hash.digest('hex'), bytes);
      if (idx !== chunkCount) throw new Error(`${file.absPath}: changed while it was being stored (${idx} chunks, expected ${chunkCount}); nothing was stored`);
      return true;
    });
  }

  /** A stored file's bytes, in order; the next chunk is read while the caller writes this one (two in memory at most). */
  async *chunks(sha256: string): AsyncIterable<Buffer> {
    const file = await this.db.selectFrom('dataset_files').select('chunk_count').where('sha256', '=', sha256).where('location', '=', 'postgres').executeTakeFirst();
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

  versionSizes(): Promise<Map<number, VersionStoreSize>> {
    return this.index.versionSizes();
  }

  totals(): Promise<{ files: number; bytes: number }> {
    return this.index.totals();
  }

  /** The chunks go with their row (ON DELETE CASCADE). */
  async gc(opts: { minAgeMs: number }): Promise<{ files: number; bytes: number }> {
    const removed = await this.index.removeUnreferenced(opts);
    return { files: removed.length, bytes: removed.reduce((s, r) => s + r.size, 0) };
  }
}

/** Throws unless the bytes read are the ones the file was registered with. */
export function assertUnchanged(file: FileToStore, actualSha256: string, bytes: number): void {
  if (actualSha256 !== file.sha256 || bytes !== file.size) {
    throw new Error(`${file.absPath}: changed while it was being stored (sha256 ${actualSha256.slice(0, 12)}, ${bytes} bytes; expected `
      + `${file.sha256.slice(0, 12)}, ${file.size} bytes); nothing was stored`);
  }
}

/** A file's bytes in `chunkBytes` pieces (the last one shorter). */
export async function* readChunks(path: string, chunkBytes: number): AsyncIterable<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of createReadStream(path, { highWaterMark: Math.min(chunkBytes, DATASET_FILE_CHUNK_BYTES) }) as AsyncIterable<Buffer>) {
    pending.push(piece);
    pendingBytes += piece.length;
    while (pendingBytes >= chunkBytes) {
      const all = Buffer.concat(pending);
      yield all.subarray(0, chunkBytes);
      pending = [all.subarray(chunkBytes)];
      pendingBytes = pending[0].length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}
