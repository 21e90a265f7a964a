import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  DatasetFileNotStoredError, ReplicaChecksumError, ReplicaMaterializer, ReplicaMissingError, sha256File, type ReplicaRequest,
} from '@sqlsweep/datasets';
import { DATASET_FILE_CHUNK_BYTES, DatasetRepository } from '@sqlsweep/db';
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { registerDataset } from './register-dataset';

const DATABASES = 10;

/** A Spider-layout folder of ten small databases (tables.json, dev.json, database/<db>/<db>.sqlite). */
function writeSpiderFolder(root: string): void {
  const tables = [];
  const dev = [];
  for (let i = 0; i < DATABASES; i++) {
    const dbId = `shop_${i}`;
    mkdirSync(join(root, 'database', dbId), { recursive: true });
    const db = new Database(join(root, 'database', dbId, `${dbId}.sqlite`));
    db.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)');
    const insert = db.prepare('INSERT INTO item (name) VALUES (?)');
    for (let r = 0; r <= i; r++) insert.run(`item ${i}.${r}`);
    db.close();
    tables.push({
      db_id: dbId, table_names_original: ['item'], table_names: ['item'],
      column_names_original: [[-1, '*'], [0, 'id'], [0, 'name']], column_names: [[-1, '*'], [0, 'id'], [0, 'name']],
      column_types: ['text', 'number', 'text'], primary_keys: [1], foreign_keys: [],
    });
    dev.push({ db_id: dbId, question: 'How many items?', query: 'SELECT count(*) FROM item' });
  }
  writeFileSync(join(root, 'tables.json'), JSON.stringify(tables));
  writeFileSync(join(root, 'dev.json'), JSON.stringify(dev));
}

describe('dataset files in the store (real Postgres)', () => {
  let t: TestDatabase;
  let repo: DatasetRepository;
  let dir: string;
  let pathA: string;
  let pathB: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    repo = new DatasetRepository(t.db);
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-store-'));
    pathA = join(dir, 'checkout-a', 'spider');
    pathB = join(dir, 'checkout-b', 'elsewhere', 'spider');
    writeSpiderFolder(pathA);
    cpSync(pathA, pathB, { recursive: true });
  });
  afterAll(async () => {
    await t?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async (table: 'dataset_files' | 'dataset_file_chunks' | 'dataset_version_files' | 'dataset_versions') =>
    Number((await t.db.selectFrom(table).select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  /** What a worker asks for: the database's row as `datasets add` stored it. */
  async function requestFor(versionId: number, dbId: string): Promise<ReplicaRequest> {
    const row = (await repo.getDatabase(versionId, dbId))!;
    return { dbId, sha256: row.checksum, file: row.replicaPath, version: 'spider', registerHint: 'sqlsweep datasets add spider --format spider --path <its folder>' };
  }

  it('stores a 10-database folder once: registered again from another path, it is the same version and nothing new is stored', async () => {
    const first = await registerDataset(repo, { name: 'spider', format: 'spider', path: pathA, dataDir: join(dir, 'data-a') });
    expect(first.created).toBe(true);
    expect(first.databases).toBe(DATABASES);
    expect(first.stored).toMatchObject({ files: DATABASES + 2, alreadyStored: 0 });
    const bytes = first.stored.bytes;

    const second = await registerDataset(repo, { name: 'spider', format: 'spider', path: pathB, dataDir: join(dir, 'data-b') });
    expect(second.created).toBe(false);
    expect(second.version.contentHash).toBe(first.version.contentHash);
    expect(second.stored).toEqual({ files: 0, bytes: 0, alreadyStored: DATABASES + 2 });
    expect(await count('dataset_versions')).toBe(1);
    expect(await count('dataset_files')).toBe(DATABASES + 2);
    expect(await count('dataset_version_files')).toBe(DATABASES + 2);
    expect(await repo.files.versionSizes()).toEqual(new Map([[first.version.id, { versionId: first.version.id, files: DATABASES + 2, bytes, missing: 0 }]]));

    // Nothing stored names where it was registered from: the databases are known by their place in the folder.
    const row = (await repo.getDatabase(first.version.id, 'shop_3'))!;
    expect(row.replicaPath).toBe('database/shop_3/shop_3.sqlite');
    expect((row.schema as { sqlitePath: string }).sqlitePath).toBe('database/shop_3/shop_3.sqlite');
  });

  it('makes a replica in another data directory from the store alone, read-only and verified, and reuses it', async () => {
    const version = (await repo.findVersion('spider'))!;
    rmSync(join(dir, 'data-a'), { recursive: true, force: true });
    rmSync(join(dir, 'data-b'), { recursive: true, force: true });
    const workerDir = join(dir, 'worker-data');
    const replicas = new ReplicaMaterializer({ dataDir: workerDir, store: repo.files });
    const request = await requestFor(version.id, 'shop_4');

    const path = await replicas.replica(request);
    expect(path.startsWith(join(workerDir, 'replicas'))).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o444);
    expect(await sha256File(path)).toBe(request.sha256);
    const db = new Database(path, { readonly: true, fileMustExist: true });
    expect(db.prepare('SELECT count(*) AS n FROM item').get()).toEqual({ n: 5 });
    db.close();

    const mtime = statSync(path).mtimeMs;
    expect(await new ReplicaMaterializer({ dataDir: workerDir, store: repo.files }).replica(request)).toBe(path);
    expect(statSync(path).mtimeMs).toBe(mtime); // reused, not fetched again
  });

  it('streams a file larger than one chunk back whole', async () => {
    const big = join(dir, 'big.bin');
    const bytes = Buffer.alloc(DATASET_FILE_CHUNK_BYTES * 2 + 123);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i % 251;
    writeFileSync(big, bytes);
    const sha256 = await sha256File(big);
    expect(await repo.files.put({ sha256, size: bytes.length, absPath: big })).toBe(true);
    expect(await repo.files.put({ sha256, size: bytes.length, absPath: big })).toBe(false);
    const back: Buffer[] = [];
    for await (const chunk of repo.files.chunks(sha256)) back.push(chunk);
    expect(back.map((c) => c.length)).toEqual([DATASET_FILE_CHUNK_BYTES, DATASET_FILE_CHUNK_BYTES, 123]);
    expect(Buffer.concat(back).equals(bytes)).toBe(true);

    writeFileSync(big, 'changed');
    await expect(repo.files.put({ sha256: 'f'.repeat(64), size: bytes.length, absPath: big })).rejects.toThrow(/big\.bin: changed while it was being stored/);
    expect(await repo.files.isStored('f'.repeat(64))).toBe(false);
  });

  it('says which of three things is wrong: a replica deleted under the worker, a replica that fails its checksum, a file not in the store', async () => {
    const version = (await repo.findVersion('spider'))!;
    const workerDir = join(dir, 'worker-errors');
    const replicas = new ReplicaMaterializer({ dataDir: workerDir, store: repo.files });

    const deleted = await requestFor(version.id, 'shop_1');
    const path = await replicas.replica(deleted);
    rmSync(path, { force: true });
    const missing = await replicas.replica(deleted).then(() => undefined, (e: Error) => e);
    expect(missing).toBeInstanceOf(ReplicaMissingError);
    expect(missing!.message).toBe(`replica ${path} (database shop_1 of spider) was deleted after this worker verified it; the next attempt `
      + 'fetches it again from the dataset store (if this repeats, something is removing files under SQLSWEEP_DATA_DIR)');
    expect(await replicas.replica(deleted)).toBe(path); // the next attempt
    expect(existsSync(path)).toBe(true);

    const tampered = await requestFor(version.id, 'shop_2');
    const tamperedPath = await replicas.replica(tampered);
    chmodSync(tamperedPath, 0o644);
    writeFileSync(tamperedPath, 'not the database');
    const corrupt = await replicas.replica(tampered).then(() => undefined, (e: Error) => e);
    expect(corrupt).toBeInstanceOf(ReplicaChecksumError);
    expect(corrupt!.message).toMatch(new RegExp(`^replica ${tamperedPath} \\(database shop_2 of spider\\) fails its checksum \\(sha256 [0-9a-f]{12}, expected ${tampered.sha256.slice(0, 12)}\\): `
      + 'it was changed after it was made; delete it and the next job fetches a fresh copy from the dataset store$'));

    // A version registered before its files were stored (its file list gone, the files collected).
    await t.db.deleteFrom('dataset_version_files').where('version_id', '=', version.id).execute();
    expect((await repo.files.gc({ minAgeMs: 0 })).files).toBe(DATABASES + 2 + 1); // and the chunk test's big file
    const unstored = await requestFor(version.id, 'shop_5');
    const notStored = await replicas.replica(unstored).then(() => undefined, (e: Error) => e);
    expect(notStored).toBeInstanceOf(DatasetFileNotStoredError);
    expect(notStored!.message).toBe(`dataset version spider: database shop_5 (database/shop_5/shop_5.sqlite, sha256 ${unstored.sha256.slice(0, 12)}) `
      + 'is not in the dataset store; store it by registering the dataset again (sqlsweep datasets add spider --format spider --path <its folder>), then run the sweep again');

    // Registering it again stores its files, and the replica can be made.
    const again = await registerDataset(repo, { name: 'spider', format: 'spider', path: pathB, dataDir: join(dir, 'data-c') });
    expect(again).toMatchObject({ created: false, stored: { files: DATABASES + 2, alreadyStored: 0 } });
    expect(await sha256File(await replicas.replica(unstored))).toBe(unstored.sha256);
  });

  it('gc removes only files no version names, and leaves those a registration found in the last minutes', async () => {
    const orphan = join(dir, 'orphan.txt');
    writeFileSync(orphan, 'nobody names me');
    const sha256 = await sha256File(orphan);
    await repo.files.put({ sha256, size: 15, absPath: orphan });
    const before = await count('dataset_files');
    expect(await repo.files.gc({ minAgeMs: 60_000 })).toEqual({ files: 0, bytes: 0 }); // just stored: a registration may be about to name it
    expect(await repo.files.gc({ minAgeMs: 0 })).toEqual({ files: 1, bytes: 15 });
    expect(await count('dataset_files')).toBe(before - 1);
    expect(await repo.files.isStored(sha256)).toBe(false);
    expect((await repo.files.versionSizes()).get((await repo.findVersion('spider'))!.id)).toMatchObject({ files: DATABASES + 2, missing: 0 });
  });
});
