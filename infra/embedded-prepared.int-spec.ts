// The project's prepared statements (libs/db executePrepared) against the embedded Postgres, whose one session
// serves every connection: two connections preparing one statement name there would collide. Apart from
// embedded-postgres.int-spec.ts because libs/db parses bigint counts as numbers for the whole process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, executePrepared, executeScript } from '@sqlsweep/db';
import { startEmbeddedServer, stopEmbeddedServer, type EmbeddedServer } from './services/private-embedded';
import { findFreePort } from './services/server-state';

jest.setTimeout(120_000);

let dir: string;
let server: EmbeddedServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sqlsweep-pglite-prepared-'));
  server = await startEmbeddedServer(dir, await findFreePort(40_000 + Math.floor(Math.random() * 10_000)));
});

afterAll(async () => {
  await stopEmbeddedServer(dir);
  rmSync(dir, { recursive: true, force: true });
});

it('runs one prepared statement from several pool connections side by side in its one session', async () => {
  const db = createDb(server.url, { max: 4 });
  try {
    const lookup = (i: number) => executePrepared(db, 'lookup', db.selectNoFrom((eb) => eb.cast<number>(eb.val(i), 'integer').as('n')).compile());
    // Concurrent calls take several connections, and each prepares the statement on its first call.
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => lookup(i)));
    expect(answers.map((rows) => rows[0].n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const again = await Promise.all(Array.from({ length: 8 }, (_, i) => lookup(100 + i)));
    expect(again.map((rows) => rows[0].n)).toEqual(Array.from({ length: 8 }, (_, i) => 100 + i));
  } finally {
    await db.destroy();
  }
});

it('runs scripts (a commit, then a read that sees it) from several pool connections side by side in its one session', async () => {
  const db = createDb(server.url, { max: 4 });
  try {
    await executeScript(db, ['CREATE TABLE IF NOT EXISTS script_rows (n integer PRIMARY KEY)']);
    const insert = (n: number) => db.insertInto('script_rows' as never).values({ n } as never).compile();
    const count = () => db.selectFrom('script_rows' as never).select((eb) => eb.fn.countAll<number>().as('n')).compile();
    const seen = await Promise.all(Array.from({ length: 24 }, async (_, i) => {
      const [, counted] = await executeScript(db, ['BEGIN', { name: 'insert', query: insert(i) }, 'COMMIT', { name: 'count', query: count() }]);
      return Number((counted[0] as { n: number }).n);
    }));
    expect(Math.max(...seen)).toBe(24);
    expect(seen.every((n) => n >= 1)).toBe(true);
  } finally {
    await db.destroy();
  }
});

it('runs the same statements from two processes sharing its one session, each numbering its connections from 0', async () => {
  // A second copy of libs/db stands for a second process: its own connection numbers, from 0.
  let other!: typeof import('@sqlsweep/db');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  jest.isolateModules(() => { other = require('@sqlsweep/db'); });
  const dbs = [createDb(server.url, { max: 2 }), other.createDb(server.url, { max: 2 })];
  try {
    const lookup = (db: (typeof dbs)[number]) => db.selectNoFrom((eb) => eb.cast<number>(eb.val(7), 'integer').as('n')).compile();
    const [a, b] = await Promise.all([executePrepared(dbs[0], 'twice', lookup(dbs[0])), other.executePrepared(dbs[1], 'twice', lookup(dbs[1]))]);
    expect([a[0].n, b[0].n]).toEqual([7, 7]);
    const [c, d] = await Promise.all([executeScript(dbs[0], [{ name: 'twice', query: lookup(dbs[0]) }]), other.executeScript(dbs[1], [{ name: 'twice', query: lookup(dbs[1]) }])]);
    expect([c, d]).toEqual([[[{ n: 7 }]], [[{ n: 7 }]]]);
  } finally {
    await Promise.all(dbs.map((db) => db.destroy()));
  }
});
