import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReplicaMaterializer, sha256File } from '@sqlsweep/datasets';
import { createDatasetFileStore, DatasetRepository, type DatasetFileStore } from '@sqlsweep/db';
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { registerDataset } from './register-dataset';

// Runs only where an S3-compatible server is reachable (see libs/db/src/dataset-file-store.int-spec.ts for the variables).
const endpoint = process.env.SQLSWEEP_TEST_S3_ENDPOINT;
const bucket = process.env.SQLSWEEP_TEST_S3_BUCKET;

if (endpoint && bucket) {
  describe('minibench through the S3-compatible dataset store (real Postgres, real S3 server)', () => {
    let t: TestDatabase;
    let dir: string;
    let store: DatasetFileStore;
    beforeAll(async () => {
      t = await createTestDatabase();
      dir = mkdtempSync(join(tmpdir(), 'sqlsweep-s3-minibench-'));
      store = createDatasetFileStore(t.db, {
        kind: 's3', endpoint, bucket, prefix: `sqlsweep-test/minibench-${process.pid}-${Date.now()}`, region: process.env.AWS_REGION ?? 'us-east-1',
        accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY,
      });
    });
    afterAll(async () => {
      // Nothing names the files once the database is dropped: gc leaves the prefix empty.
      await t?.db.deleteFrom('dataset_version_files').execute();
      await store?.gc({ minAgeMs: 0 });
      store?.close?.();
      await t?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('datasets add stores its files in the bucket once; a worker elsewhere makes verified read-only replicas from it', async () => {
      const repo = new DatasetRepository(t.db, store);
      const first = await registerDataset(repo, { name: 'minibench', format: 'minibench', path: 'data/minibench/dist', dataDir: join(dir, 'registering') });
      expect(first.stored.files).toBeGreaterThan(0);
      const again = await registerDataset(repo, { name: 'minibench', format: 'minibench', path: 'data/minibench/dist', dataDir: join(dir, 'registering') });
      expect(again.stored).toEqual({ files: 0, bytes: 0, alreadyStored: first.stored.files });
      expect((await store.versionSizes()).get(first.version.id)).toMatchObject({ missing: 0, bytes: first.stored.bytes });

      const replicas = new ReplicaMaterializer({ dataDir: join(dir, 'worker'), store });
      const databases = await t.db.selectFrom('dataset_databases').select(['db_id', 'checksum', 'replica_path']).where('version_id', '=', first.version.id).execute();
      expect(databases.length).toBeGreaterThan(0);
      for (const d of databases) {
        const path = await replicas.replica({ dbId: d.db_id, sha256: d.checksum, version: 'minibench', file: d.replica_path, registerHint: 'sqlsweep datasets add minibench' });
        expect(path.startsWith(join(dir, 'worker'))).toBe(true);
        expect(await sha256File(path)).toBe(d.checksum);
        expect(statSync(path).mode & 0o222).toBe(0);
      }
    });
  });
} else {
  it.skip('minibench through the S3 dataset store (set SQLSWEEP_TEST_S3_ENDPOINT, SQLSWEEP_TEST_S3_BUCKET, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to run)', () => undefined);
}
