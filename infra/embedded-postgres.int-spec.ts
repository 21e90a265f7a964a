// The embedded Postgres (PGlite over the wire protocol) under the load the demo puts on it:
// several OS processes, each with a small pg pool, running transactions concurrently. The server runs
// as ensureServices runs it, in its own process (PGlite's WASM loader also needs real ESM, which
// Jest's module sandbox does not offer).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client, Pool } from 'pg';
import { startEmbeddedServer, stopEmbeddedServer, type EmbeddedServer } from './services/private-embedded';
import { findFreePort } from './services/server-state';

jest.setTimeout(120_000);

const execFileAsync = promisify(execFile);
const repoRoot = resolve(__dirname, '..');
const nodeArgs = (script: string, ...args: string[]) => ['-r', '@swc-node/register', join(__dirname, 'fixtures', script), ...args];

let dir: string;
let server: EmbeddedServer;
let admin: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sqlsweep-pglite-'));
  server = await startEmbeddedServer(dir, await findFreePort(30_000 + Math.floor(Math.random() * 10_000)));
  admin = new Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`
    CREATE TABLE counter (id int PRIMARY KEY, value int NOT NULL);
    CREATE TABLE stage_results (key text PRIMARY KEY, output jsonb NOT NULL);`);
});

afterAll(async () => {
  await admin?.end();
  await stopEmbeddedServer(dir);
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await admin.query('DELETE FROM stage_results; DELETE FROM counter; INSERT INTO counter VALUES (1, 0)');
});

it('serves several processes with pools running transactions, ON CONFLICT and jsonb at once', async () => {
  const processes = 3;
  const transactions = 60;
  const outputs = await Promise.all(
    Array.from({ length: processes }, (_, i) =>
      execFileAsync(process.execPath, nodeArgs('pg-load-client.ts', server.url, `p${i}`, String(transactions), '4'), {
        cwd: repoRoot,
      }),
    ),
  );
  const reports = outputs.map((o) => JSON.parse(o.stdout.trim()) as { committed: number; wrongEchoes: number });
  expect(reports.map((r) => r.committed)).toEqual(Array(processes).fill(transactions));
  expect(reports.map((r) => r.wrongEchoes)).toEqual(Array(processes).fill(0));
  // read-modify-write under FOR UPDATE: no increment lost
  expect((await admin.query('SELECT value FROM counter WHERE id = 1')).rows[0].value).toBe(processes * transactions);
  // 20 distinct keys, inserted idempotently by everyone
  const { rows } = await admin.query<{ n: string; firsts: string }>(
    "SELECT count(*) AS n, count(*) FILTER (WHERE output ? 'by') AS firsts FROM stage_results",
  );
  expect(rows[0]).toEqual({ n: '20', firsts: '20' });
});

it('keeps an open transaction private and makes other connections wait for it', async () => {
  const a = new Client({ connectionString: server.url });
  const b = new Client({ connectionString: server.url });
  await Promise.all([a.connect(), b.connect()]);
  try {
    await a.query('BEGIN');
    await a.query('INSERT INTO stage_results (key, output) VALUES ($1, $2)', ['tx', { step: 1 }]);
    let bDone = false;
    const bRead = b.query<{ n: string }>('SELECT count(*) AS n FROM stage_results WHERE key = $1', ['tx']).then((r) => {
      bDone = true;
      return r.rows[0]?.n;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(bDone).toBe(false); // b queues behind a's transaction rather than seeing uncommitted rows
    await a.query('ROLLBACK');
    expect(await bRead).toBe('0');

    await a.query('BEGIN');
    await a.query('INSERT INTO stage_results (key, output) VALUES ($1, $2)', ['tx', { step: 2 }]);
    await a.query('COMMIT');
    const { rows } = await b.query<{ step: number }>("SELECT (output->>'step')::int AS step FROM stage_results WHERE key = 'tx'");
    expect(rows).toEqual([{ step: 2 }]);
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
});

it('rolls back a failed transaction without disturbing other connections', async () => {
  const pool = new Pool({ connectionString: server.url, max: 3 });
  try {
    await pool.query("INSERT INTO stage_results VALUES ('dup', '{}')");
    const client = await pool.connect();
    await client.query('BEGIN');
    await client.query("INSERT INTO stage_results VALUES ('new-in-failed-tx', '{}')");
    await expect(client.query("INSERT INTO stage_results VALUES ('dup', '{}')")).rejects.toMatchObject({ code: '23505' });
    await expect(client.query('SELECT 1')).rejects.toMatchObject({ code: '25P02' });
    await client.query('ROLLBACK');
    client.release();
    const upsert = await pool.query<{ output: { n: number } }>(
      `INSERT INTO stage_results VALUES ('dup', '{"n":1}') ON CONFLICT (key) DO UPDATE SET output = stage_results.output || EXCLUDED.output RETURNING output`,
    );
    expect(upsert.rows[0]?.output).toEqual({ n: 1 });
    const keys = await pool.query<{ key: string }>('SELECT key FROM stage_results ORDER BY key');
    expect(keys.rows.map((r) => r.key)).toEqual(['dup']);
  } finally {
    await pool.end();
  }
});

it('rolls back the open transaction of a process killed with SIGKILL, and the rest carry on', async () => {
  const holder = spawn(process.execPath, nodeArgs('pg-hold-transaction.ts', server.url, 'killed'), {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolveReady, reject) => {
    holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('in-transaction') && resolveReady());
    holder.once('exit', (code) => reject(new Error(`holder exited early with ${code}`)));
  });
  holder.kill('SIGKILL');
  const { rows } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM stage_results WHERE key = 'killed'");
  expect(rows[0]?.n).toBe('0');
});

it('frees the session when a client drops in the middle of an extended-protocol batch', async () => {
  const socket = connect(server.port, '127.0.0.1');
  await new Promise<void>((ready, fail) => {
    socket.once('error', fail);
    socket.once('connect', () => {
      const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
      const startup = Buffer.alloc(8);
      startup.writeInt32BE(8 + params.length, 0);
      startup.writeInt32BE(196608, 4);
      socket.write(Buffer.concat([startup, params]));
    });
    let seen = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      if (seen.includes(Buffer.from([0x5a, 0, 0, 0, 5]))) ready(); // ReadyForQuery
    });
  });
  // Parse of the unnamed statement, then no Sync: this connection now owns the session mid-batch
  const body = Buffer.from('\0SELECT 1\0\0\0');
  const header = Buffer.alloc(5);
  header.write('P', 0);
  header.writeInt32BE(4 + body.length, 1);
  socket.write(Buffer.concat([header, body]));
  await new Promise((r) => setTimeout(r, 200));
  socket.destroy();

  const { rows } = await admin.query<{ n: number }>('SELECT $1::int AS n', [41]);
  expect(rows[0]?.n).toBe(41);
}, 20_000);

it('keeps data across a restart on the same data folder', async () => {
  await admin.query("INSERT INTO stage_results VALUES ('durable', '{\"kept\":true}')");
  await admin.end();
  expect(await stopEmbeddedServer(dir)).toBe(true);
  server = await startEmbeddedServer(dir, server.port);
  admin = new Client({ connectionString: server.url });
  await admin.connect();
  const { rows } = await admin.query("SELECT output FROM stage_results WHERE key = 'durable'");
  expect(rows).toEqual([{ output: { kept: true } }]);
});

it('shares one session, so advisory locks do not exclude other connections (a known limit)', async () => {
  const other = new Client({ connectionString: server.url });
  await other.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(4242)');
    const { rows } = await other.query<{ got: boolean }>('SELECT pg_try_advisory_lock(4242) AS got');
    expect(rows[0]?.got).toBe(true); // on a real server this is false
  } finally {
    await admin.query('SELECT pg_advisory_unlock_all()');
    await other.end();
  }
});
