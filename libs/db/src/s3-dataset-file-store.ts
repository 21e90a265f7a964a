import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectsCommand, GetObjectCommand,
  HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { sql } from 'kysely';
import type { Db } from './connection';
import { DatasetFileIndex, type VersionStoreSize } from './dataset-file-index';
import { assertUnchanged, readChunks, type DatasetFileStore, type FileToStore } from './dataset-file-store';

/** An S3-compatible object store (AWS S3, MinIO, Ceph, ...): path-style requests, so any endpoint works. */
export interface S3StoreSettings {
  /** Default: AWS S3 for the region. */
  endpoint?: string;
  bucket: string;
  /** Objects are `<prefix>/<sha256>`. */
  prefix: string;
  region: string;
  /** Both or neither; neither: the SDK's default credential chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** Files up to this size are read, hashed and sent in one request; larger ones go up in parts of this size. */
export const S3_PART_BYTES = 8 * 1024 * 1024;
/** Puts hold it shared from their check to their row's commit, gc exclusively: gc never removes an object a put is recording. */
const S3_GC_LOCK = 7_305_432_801;
/** Two-int advisory keys (a space apart from the one-bigint gc lock): one per content being put. */
const S3_PUT_LOCK_SPACE = 730_543;
const OBJECT_NAME = /^[0-9a-f]{64}$/;

/**
 * Dataset files in an S3-compatible object store by content, at `<prefix>/<sha256>`; Postgres keeps the record
 * (`dataset_files` rows with location 's3') and the version manifest, so listing and gc work as for the Postgres
 * store. An object is written only after its bytes are hashed and match (one request, or a multipart upload
 * completed only then) and never overwritten: one already there is kept.
 */
export class S3DatasetFileStore implements DatasetFileStore {
  readonly where: string;
  private readonly index: DatasetFileIndex;
  private readonly s3: S3Client;
  private readonly prefix: string;

  constructor(private readonly db: Db, private readonly settings: S3StoreSettings) {
    this.index = new DatasetFileIndex(db, 's3');
    this.prefix = settings.prefix.replace(/^\/+|\/+$/g, '');
    this.where = `s3://${settings.bucket}/${this.prefix}`;
    this.s3 = new S3Client({
      endpoint: settings.endpoint, region: settings.region, forcePathStyle: true,
      credentials: settings.accessKeyId && settings.secretAccessKey
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } : undefined,
      // Our own sha256 covers integrity; the SDK's default CRC checksums are refused by some S3-compatible servers.
      requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  keyOf(sha256: string): string {
    return this.prefix ? `${this.prefix}/${sha256}` : sha256;
  }

  storedAmong(sha256s: string[]): Promise<Set<string>> {
    return this.index.storedAmong(sha256s);
  }

  /** Recorded and its object there (an object removed by hand reads as not stored, so the replica error says so). */
  async isStored(sha256: string): Promise<boolean> {
    return (await this.index.isRecorded(sha256)) && (await this.objectSize(this.keyOf(sha256))) !== undefined;
  }

  /** A file recorded in Postgres's chunks (an earlier configuration) is taken over: uploaded, and its chunks dropped. */
  async put(file: FileToStore): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock_shared(${S3_GC_LOCK}::bigint)`.execute(tx);
      // One put of a content at a time: a second waits for the first's row and uploads nothing (no object is rewritten).
      await sql`SELECT pg_advisory_xact_lock(${S3_PUT_LOCK_SPACE}, hashtext(${file.sha256}))`.execute(tx);
      const row = await tx.selectFrom('dataset_files').select('location').where('sha256', '=', file.sha256).forUpdate().executeTakeFirst();
      if (row?.location === 's3') return false;
      await this.upload(file);
      if (row) {
        await tx.updateTable('dataset_files').set({ location: 's3', chunk_count: 0, stored_at: sql<Date>`now()` }).where('sha256', '=', file.sha256).execute();
        await tx.deleteFrom('dataset_file_chunks').where('sha256', '=', file.sha256).execute();
        return true;
      }
      const inserted = await tx.insertInto('dataset_files').values({ sha256: file.sha256, size: file.size, chunk_count: 0, location: 's3' })
        .onConflict((c) => c.column('sha256').doNothing()).returning('sha256').executeTakeFirst();
      return inserted !== undefined;
    });
  }

  async *chunks(sha256: string): AsyncIterable<Buffer> {
    const key = this.keyOf(sha256);
    let body: Readable;
    try {
      body = (await this.s3.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }))).Body as Readable;
    } catch (e) {
      if (isNotFound(e)) throw new Error(`dataset store: no file with sha256 ${sha256} (object ${key} of bucket ${this.settings.bucket})`);
      throw e;
    }
    for await (const chunk of body) yield chunk as Buffer;
  }

  versionSizes(): Promise<Map<number, VersionStoreSize>> {
    return this.index.versionSizes();
  }

  totals(): Promise<{ files: number; bytes: number }> {
    return this.index.totals();
  }

  /**
   * Forgets unreferenced files (as the Postgres store does), then deletes under the prefix every object no record
   * names: theirs, and any left by a put that died between its upload and its commit.
   */
  async gc(opts: { minAgeMs: number }): Promise<{ files: number; bytes: number }> {
    return this.db.connection().execute(async (conn) => {
      await sql`SELECT pg_advisory_lock(${S3_GC_LOCK}::bigint)`.execute(conn);
      try {
        await new DatasetFileIndex(conn, 's3').removeUnreferenced(opts);
        return await this.deleteUnrecordedObjects(conn);
      } finally {
        await sql`SELECT pg_advisory_unlock(${S3_GC_LOCK}::bigint)`.execute(conn);
      }
    });
  }

  private async deleteUnrecordedObjects(conn: Db): Promise<{ files: number; bytes: number }> {
    const out = { files: 0, bytes: 0 };
    let token: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({
        Bucket: this.settings.bucket, Prefix: this.prefix ? `${this.prefix}/` : undefined, ContinuationToken: token,
      }));
      // Only `<prefix>/<sha256>` itself: objects in folders below the prefix are not this store's.
      const shaOf = (key: string) => (this.prefix ? key.slice(this.prefix.length + 1) : key);
      const objects = (page.Contents ?? []).filter((o) => o.Key !== undefined && OBJECT_NAME.test(shaOf(o.Key)));
      const shas = objects.map((o) => shaOf(o.Key!));
      const recorded = shas.length === 0 ? [] : await conn.selectFrom('dataset_files').select('sha256').where('location', '=', 's3').where('sha256', 'in', shas).execute();
      const keep = new Set(recorded.map((r) => r.sha256));
      const doomed = objects.filter((_, i) => !keep.has(shas[i]));
      if (doomed.length > 0) {
        const res = await this.s3.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: doomed.map((o) => ({ Key: o.Key! })), Quiet: true } }));
        const failed = res.Errors ?? [];
        if (failed.length > 0) throw new Error(`dataset store ${this.where}: could not delete ${failed.length} object(s), e.g. ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message}`);
        out.files += doomed.length;
        out.bytes += doomed.reduce((s, o) => s + (o.Size ?? 0), 0);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  /** Uploads the file unless its object is there already; the object appears only once its bytes matched their sha256. */
  private async upload(file: FileToStore): Promise<void> {
    const key = this.keyOf(file.sha256);
    const existing = await this.objectSize(key);
    if (existing !== undefined) {
      if (existing !== file.size) throw new Error(`dataset store ${this.where}: object ${key} holds ${existing} bytes, not ${file.size}: it was not written by sqlsweep; remove it`);
      return;
    }
    if (file.size <= S3_PART_BYTES) {
      const body = await readFile(file.absPath);
      assertUnchanged(file, createHash('sha256').update(body).digest('hex'), body.length);
      await this.s3.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: body, ContentLength: body.length }));
      return;
    }
    const { UploadId } = await this.s3.send(new CreateMultipartUploadCommand({ Bucket: this.settings.bucket, Key: key }));
    try {
      const hash = createHash('sha256');
      const parts: { ETag?: string; PartNumber: number }[] = [];
      let bytes = 0;
      for await (const part of readChunks(file.absPath, S3_PART_BYTES)) {
        hash.update(part);
        bytes += part.length;
        const PartNumber = parts.length + 1;
        const { ETag } = await this.s3.send(new UploadPartCommand({ Bucket: this.settings.bucket, Key: key, UploadId, PartNumber, Body: part, ContentLength: part.length }));
        parts.push({ ETag, PartNumber });
      }
      assertUnchanged(file, hash.digest('hex'), bytes);
      await this.s3.send(new CompleteMultipartUploadCommand({ Bucket: this.settings.bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (e) {
      await this.s3.send(new AbortMultipartUploadCommand({ Bucket: this.settings.bucket, Key: key, UploadId })).catch(() => undefined);
      throw e;
    }
  }

  private async objectSize(key: string): Promise<number | undefined> {
    try {
      return (await this.s3.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }))).ContentLength ?? 0;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  close(): void {
    this.s3.destroy();
  }
}

function isNotFound(e: unknown): boolean {
  return e instanceof S3ServiceException && (e.$metadata.httpStatusCode === 404 || e.name === 'NotFound' || e.name === 'NoSuchKey');
}
