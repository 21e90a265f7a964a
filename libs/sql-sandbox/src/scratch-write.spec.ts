import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { executeOnScratchCopy } from './scratch-write';
import Database from 'better-sqlite3';
import { createSpecDatabase, type SpecDatabase } from './spec-database';

describe('writes on a throw-away in-memory copy, in one reused child', () => {
  let dbPath: string;
  let database: SpecDatabase;
  beforeAll(() => {
    database = createSpecDatabase('shop.sqlite', "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'pen'), (2, 'ink');");
    ({ dbPath } = database);
  });
  afterAll(() => database.remove());

  const rows = () => {
    const db = new Database(dbPath, { readonly: true });
    const n = (db.prepare('SELECT count(*) AS n FROM item').get() as { n: number }).n;
    db.close();
    return n;
  };

  it('runs writes one after another, kills one past its deadline and serves the next from a fresh child', async () => {
    const [first, second] = await Promise.all([
      executeOnScratchCopy(dbPath, 'DELETE FROM item', { deadlineMs: 20_000 }),
      executeOnScratchCopy(dbPath, "UPDATE item SET name = 'x' RETURNING id", { deadlineMs: 20_000 }),
    ]);
    expect(first).toMatchObject({ status: 'ok', rows: [] });
    // Each write sees its own fresh copy: the DELETE before it emptied nothing it can see.
    expect(second).toMatchObject({ status: 'ok', rows: [[1], [2]] });
    const endless = 'CREATE TABLE t AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c';
    expect(await executeOnScratchCopy(dbPath, endless, { deadlineMs: 300 })).toMatchObject({ status: 'timeout' });
    expect(await executeOnScratchCopy(dbPath, 'DELETE FROM item WHERE 1 = 0', { deadlineMs: 20_000 })).toMatchObject({ status: 'ok', rows: [] });
    expect(rows()).toBe(2);
  }, 60_000);

  it('does not keep its process alive once the writes are done', async () => {
    const script = `require(${JSON.stringify(join(__dirname, 'scratch-write'))}).executeOnScratchCopy(${JSON.stringify(dbPath)}, 'DELETE FROM item', { deadlineMs: 20000 })
      .then((r) => process.stdout.write(r.status))`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-r', require.resolve('@swc-node/register'), '-e', script], { timeout: 45_000 });
    expect(stdout).toBe('ok');
    expect(rows()).toBe(2);
  }, 60_000);
});
