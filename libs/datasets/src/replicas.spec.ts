import { chmodSync, mkdtempSync, mkdirSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ensureReplicas, hashDatasetFiles, registerCommandFor, renderSchemaDdl, sha256File } from './index';

describe('hashDatasetFiles', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'sqlsweep-hash-'));
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'a.json'), '[]');
    writeFileSync(join(root, 'sub', 'b.csv'), 'x');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is stable, and changes when a byte, a name or the file set changes', async () => {
    const first = await hashDatasetFiles(root);
    expect(await hashDatasetFiles(root)).toBe(first);
    writeFileSync(join(root, 'sub', 'b.csv'), 'y');
    const edited = await hashDatasetFiles(root);
    expect(edited).not.toBe(first);
    writeFileSync(join(root, 'c.txt'), '');
    expect(await hashDatasetFiles(root)).not.toBe(edited);
  });
});

describe('ensureReplicas', () => {
  let root: string;
  let db: { dbId: string; sqlitePath: string; sha256: string };
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'sqlsweep-rep-'));
    const path = join(root, 'shop.sqlite');
    const conn = new Database(path);
    conn.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);');
    conn.close();
    db = { dbId: 'shop', sqlitePath: path, sha256: await sha256File(path) };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('copies once per content, read-only, named by its checksum, and replaces a tampered replica', async () => {
    const dataDir = join(root, 'data');
    const first = await ensureReplicas({ databases: [db], dataDir });
    const replica = first.get('shop')!;
    expect(replica).toBe(join(dataDir, 'replicas', `${db.sha256}.sqlite`));
    expect(statSync(replica).mode & 0o777).toBe(0o444);
    expect(await sha256File(replica)).toBe(db.sha256);
    const mtime = statSync(replica).mtimeMs;
    await ensureReplicas({ databases: [db], dataDir });
    expect(statSync(replica).mtimeMs).toBe(mtime); // not copied again

    chmodSync(replica, 0o644);
    writeFileSync(replica, 'corrupted');
    await ensureReplicas({ databases: [db], dataDir });
    expect(await sha256File(replica)).toBe(db.sha256);
    expect(readdirSync(join(dataDir, 'replicas'))).toEqual([`${db.sha256}.sqlite`]);
  });

  it('refuses a checksum that is not a sha256 (it names a file)', async () => {
    await expect(ensureReplicas({ databases: [{ ...db, sha256: '../x' }], dataDir: root })).rejects.toThrow(/is not a sha256/);
  });
});

describe('renderSchemaDdl', () => {
  it('renders columns, primary keys and foreign keys, quoting odd names', () => {
    const ddl = renderSchemaDdl({
      dbId: 'x',
      sqlitePath: '',
      tables: [
        { name: 'dept', columns: [{ name: 'id', type: 'number', primaryKey: true, sampleValues: [] }] },
        {
          name: 'staff member',
          columns: [
            { name: 'id', type: 'number', primaryKey: true, sampleValues: [] },
            { name: 'dept_id', type: 'number', primaryKey: false, references: { table: 'dept', column: 'id' }, sampleValues: [] },
          ],
        },
      ],
    });
    expect(ddl).toBe(
      'CREATE TABLE dept (\n  id number,\n  PRIMARY KEY (id)\n);\n\n' +
        'CREATE TABLE "staff member" (\n  id number,\n  dept_id number,\n  PRIMARY KEY (id),\n  FOREIGN KEY (dept_id) REFERENCES dept(id)\n);',
    );
  });
});

describe('registerCommandFor', () => {
  it('names the folder a version was registered from, quoted for a shell when it needs to be', () => {
    expect(registerCommandFor({ datasetName: 'minibench', format: 'minibench', sourcePath: '/srv/data/minibench/dist' }))
      .toBe('sqlsweep datasets add minibench --format minibench --path /srv/data/minibench/dist');
    expect(registerCommandFor({ datasetName: 'spider', format: 'spider', sourcePath: "/home/o'neil/my data" }))
      .toBe("sqlsweep datasets add spider --format spider --path '/home/o'\\''neil/my data'");
    expect(registerCommandFor({ datasetName: 'bird', format: 'bird' })).toBe('sqlsweep datasets add bird --format bird --path <its folder>');
  });
});
