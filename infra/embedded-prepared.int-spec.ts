// The project's prepared statements (libs/db executePrepared) against the embedded Postgres, whose one session
// serves every connection: two connections preparing one statement name there would collide. Apart from
// embedded-postgres.int-spec.ts because libs/db parses bigint counts as numbers for the whole process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, executePrepared } from '@sqlsweep/db';
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
