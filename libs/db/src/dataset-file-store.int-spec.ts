import { DeleteObjectsCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Test helpers build on db; this spec-only import must not make the project graph circular.
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { describeDatasetFileStoreContract } from './dataset-file-store-contract';
import { PostgresDatasetFileStore } from './dataset-file-store';
import { S3DatasetFileStore, type S3StoreSettings } from './s3-dataset-file-store';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

describeDatasetFileStoreContract('postgres', () => ({
  get db() { return t.db; },
  make: async () => ({
    store: new PostgresDatasetFileStore(t.db),
    holdsBytes: async (sha256) => (await t.db.selectFrom('dataset_file_chunks').select('idx').where('sha256', '=', sha256).executeTakeFirst()) !== undefined,
  }),
}));

describe('the Postgres backend beyond the contract', () => {
  it('takes over a file recorded in the object store (an earlier SQLSWEEP_DATASET_STORE=s3): writes its chunks, and reads it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-pg-store-'));
    try {
      const bytes = randomBytes(50_000);
      const absPath = join(dir, 'moved-back.bin');
      writeFileSync(absPath, bytes);
      const f = { absPath, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
      await t.db.insertInto('dataset_files').values({ sha256: f.sha256, size: f.size, chunk_count: 0, location: 's3' }).execute();
      const store = new PostgresDatasetFileStore(t.db);
      expect(await store.isStored(f.sha256)).toBe(false);
      expect(await store.storedAmong([f.sha256])).toEqual(new Set());
      expect(await store.put(f)).toBe(true);
      expect(await store.put(f)).toBe(false);
      const parts: Buffer[] = [];
      for await (const c of store.chunks(f.sha256)) parts.push(c);
      expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The S3 backend runs only where an S3-compatible server is reachable: SQLSWEEP_TEST_S3_ENDPOINT, SQLSWEEP_TEST_S3_BUCKET
// (existing), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. Each run writes under its own prefix and removes it after.
const endpoint = process.env.SQLSWEEP_TEST_S3_ENDPOINT;
const bucket = process.env.SQLSWEEP_TEST_S3_BUCKET;
const s3Settings = (prefix: string): S3StoreSettings => ({
  endpoint, bucket: bucket!, prefix, region: process.env.AWS_REGION ?? 'us-east-1',
  accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY,
});
const runPrefix = `sqlsweep-test/${process.pid}-${Date.now()}`;

if (endpoint && bucket) {
  const client = new S3Client({
    endpoint, region: process.env.AWS_REGION ?? 'us-east-1', forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const stores: S3DatasetFileStore[] = [];
  const open = (prefix: string) => {
    const store = new S3DatasetFileStore(t.db, s3Settings(prefix));
    stores.push(store);
    return store;
  };
  const head = (key: string) => client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).then((r) => r, () => undefined);
  afterAll(async () => {
    for (;;) {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${runPrefix}/` }));
      if (!page.Contents?.length) break;
      await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: page.Contents.map((o) => ({ Key: o.Key! })) } }));
    }
    for (const s of stores) s.close();
    client.destroy();
  });

  describeDatasetFileStoreContract('s3', () => ({
    get db() { return t.db; },
    make: async () => {
      const store = open(`${runPrefix}/contract`);
      return { store, holdsBytes: async (sha256) => (await head(store.keyOf(sha256))) !== undefined };
    },
  }));

  describe('the S3 backend beyond the contract', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'sqlsweep-s3-store-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = (label: string, bytes: Buffer) => {
      const absPath = join(dir, label);
      writeFileSync(absPath, bytes);
      return { absPath, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    };

    it('keeps an object already at its key (never overwritten) and records it', async () => {
      const store = open(`${runPrefix}/present`);
      const bytes = randomBytes(4096);
      const f = file('present.bin', bytes);
      // As a put that died after its upload, before its commit, leaves it.
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: store.keyOf(f.sha256), Body: bytes }));
      const before = (await head(store.keyOf(f.sha256)))!;
      expect(await store.put(f)).toBe(true);
      const after = (await head(store.keyOf(f.sha256)))!;
      expect(after.ETag).toBe(before.ETag);
      expect(await store.isStored(f.sha256)).toBe(true);
    });

    it('takes over a file stored in Postgres: uploads it and drops its chunks', async () => {
      const f = file('moved.bin', randomBytes(10_000));
      expect(await new PostgresDatasetFileStore(t.db).put(f)).toBe(true);
      const store = open(`${runPrefix}/moved`);
      expect(await store.isStored(f.sha256)).toBe(false);
      expect(await store.put(f)).toBe(true);
      expect(await store.put(f)).toBe(false);
      expect(await t.db.selectFrom('dataset_file_chunks').select('idx').where('sha256', '=', f.sha256).execute()).toEqual([]);
      expect(await new PostgresDatasetFileStore(t.db).isStored(f.sha256)).toBe(false);
      const parts: Buffer[] = [];
      for await (const c of store.chunks(f.sha256)) parts.push(c);
      expect(createHash('sha256').update(Buffer.concat(parts)).digest('hex')).toBe(f.sha256);
    });

    it('gc deletes objects under its prefix that no record names (a put that died before its commit), and nothing outside it', async () => {
      const store = open(`${runPrefix}/orphans`);
      const orphan = 'b'.repeat(64);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: store.keyOf(orphan), Body: Buffer.from('left by a dead put') }));
      const outside = `${runPrefix}/other/${'c'.repeat(64)}`;
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: outside, Body: Buffer.from('another prefix') }));
      expect(await store.gc({ minAgeMs: 0 })).toEqual({ files: 1, bytes: 18 });
      expect(await head(store.keyOf(orphan))).toBeUndefined();
      expect(await head(outside)).toBeDefined();
    });

    it('a file recorded but whose object was removed by hand reads as not stored', async () => {
      const store = open(`${runPrefix}/removed`);
      const f = file('removed.bin', randomBytes(2048));
      expect(await store.put(f)).toBe(true);
      await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: store.keyOf(f.sha256) }] } }));
      expect(await store.isStored(f.sha256)).toBe(false);
      await expect((async () => { for await (const c of store.chunks(f.sha256)) void c; })()).rejects.toThrow(`no file with sha256 ${f.sha256}`);
    });
  });
} else {
  it.skip('S3 backend contract (set SQLSWEEP_TEST_S3_ENDPOINT, SQLSWEEP_TEST_S3_BUCKET, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to run)', () => undefined);
}
