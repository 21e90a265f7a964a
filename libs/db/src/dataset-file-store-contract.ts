import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from './connection';
import { DatasetRepository } from './dataset.repository';
import type { DatasetFileStore, FileToStore } from './dataset-file-store';

export interface StoreUnderTest {
  store: DatasetFileStore;
  /** Whether the backend holds bytes for this sha256 (chunk rows, or the object), whatever the record says. */
  holdsBytes(sha256: string): Promise<boolean>;
}

/** Bigger than one Postgres chunk (4 MiB) and one S3 part (8 MiB): read back in pieces, uploaded in parts. */
const LARGE_BYTES = 9 * 1024 * 1024 + 123;

/**
 * What every dataset file store does, run against each backend: a file is stored once, read back byte-identical,
 * refused (nothing kept) when its bytes are not those it was hashed as, and gc removes only what no version names.
 */
export function describeDatasetFileStoreContract(name: string, open: () => { db: Db; make: () => Promise<StoreUnderTest> }): void {
  describe(`dataset file store contract: ${name}`, () => {
    let dir: string;
    let db: Db;
    let s: StoreUnderTest;
    let files: Record<'large' | 'small' | 'empty' | 'loose', FileToStore>;

    function file(label: string, bytes: Buffer): FileToStore {
      const absPath = join(dir, label);
      writeFileSync(absPath, bytes);
      return { absPath, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    }
    async function readBack(sha256: string): Promise<Buffer> {
      const parts: Buffer[] = [];
      for await (const c of s.store.chunks(sha256)) parts.push(Buffer.from(c));
      return Buffer.concat(parts);
    }

    beforeAll(async () => {
      const o = open();
      db = o.db;
      s = await o.make();
      dir = mkdtempSync(join(tmpdir(), 'sqlsweep-file-store-'));
      files = {
        large: file('large.sqlite', randomBytes(LARGE_BYTES)), small: file('small.json', Buffer.from(`{"run":"${name} ${Date.now()}"}`)),
        empty: file('empty.csv', Buffer.alloc(0)), loose: file('loose.csv', randomBytes(1000)),
      };
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('stores each file once; storing it again (from another path too) stores nothing', async () => {
      for (const f of Object.values(files)) expect(await s.store.put(f)).toBe(true);
      const totals = await s.store.totals();
      expect(totals).toEqual({ files: 4, bytes: LARGE_BYTES + files.small.size + 1000 });
      for (const f of Object.values(files)) {
        expect(await s.store.isStored(f.sha256)).toBe(true);
        expect(await s.store.put(f)).toBe(false);
      }
      const elsewhere = join(dir, 'another-checkout.sqlite');
      copyFileSync(files.large.absPath, elsewhere);
      expect(await s.store.put({ ...files.large, absPath: elsewhere })).toBe(false);
      expect(await s.store.totals()).toEqual(totals);
      expect(await s.store.storedAmong([files.small.sha256, 'f'.repeat(64)])).toEqual(new Set([files.small.sha256]));
    });

    it('two puts of the same new content at once: one stores it, the other stores nothing', async () => {
      const f = file('raced.bin', randomBytes(100_000));
      const results = await Promise.all([s.store.put(f), s.store.put(f)]);
      expect(results.sort()).toEqual([false, true]);
      expect(await readBack(f.sha256)).toEqual(bytesOf(f));
    });

    it('reads each file back byte-identical', async () => {
      for (const f of Object.values(files)) expect((await readBack(f.sha256)).equals(bytesOf(f))).toBe(true);
    });

    it('refuses a file whose bytes changed after it was hashed, small or in parts, and keeps nothing of it', async () => {
      for (const [label, size] of [['changed-small', 5000], ['changed-large', LARGE_BYTES]] as const) {
        const original = randomBytes(size);
        const f = file(label, original);
        const changed = Buffer.from(original);
        changed[size - 1] ^= 0xff; // the last part: a multipart upload has sent every earlier one when it finds out
        writeFileSync(f.absPath, changed);
        await expect(s.store.put(f)).rejects.toThrow(`${f.absPath}: changed while it was being stored`);
        expect(await s.store.isStored(f.sha256)).toBe(false);
        expect(await s.holdsBytes(f.sha256)).toBe(false);
        expect(await s.store.storedAmong([f.sha256])).toEqual(new Set());
      }
    });

    it('gc removes only files no version names (and none younger than its minimum age)', async () => {
      const repo = new DatasetRepository(db, s.store);
      const { version } = await repo.registerVersion({
        name: `contract-${name}`, format: 'spider', contentHash: 'a'.repeat(64), sourcePath: dir, items: [], databases: [],
        files: [files.large, files.small, files.empty].map((f, i) => ({ path: `f${i}`, sha256: f.sha256, size: f.size })),
      });
      expect((await s.store.versionSizes()).get(version.id)).toEqual({ versionId: version.id, files: 3, bytes: LARGE_BYTES + files.small.size, missing: 0 });
      expect(await s.store.gc({ minAgeMs: 3_600_000 })).toEqual({ files: 0, bytes: 0 });
      const before = await s.store.totals();
      const removed = await s.store.gc({ minAgeMs: 0 });
      expect(removed.files).toBe(2); // loose.csv and raced.bin
      expect(removed.bytes).toBe(1000 + 100_000);
      expect(await s.store.totals()).toEqual({ files: before.files - 2, bytes: before.bytes - 101_000 });
      expect(await s.store.isStored(files.loose.sha256)).toBe(false);
      expect(await s.holdsBytes(files.loose.sha256)).toBe(false);
      for (const f of [files.large, files.small, files.empty]) expect((await readBack(f.sha256)).equals(bytesOf(f))).toBe(true);
      expect(await s.store.gc({ minAgeMs: 0 })).toEqual({ files: 0, bytes: 0 });
    });
  });
}

/** The bytes a test file was written with (never changed after its put). */
function bytesOf(f: FileToStore): Buffer {
  return readFileSync(f.absPath);
}
