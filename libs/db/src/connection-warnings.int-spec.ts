import { randomUUID } from 'node:crypto';
import { ThrottledWarnings } from '@sqlsweep/config';
import { sql } from 'kysely';
import { Client } from 'pg';
import { createDb } from './connection';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

it('a pooled Postgres connection cut by the server is warned about (it was swallowed before)', async () => {
  const lines: string[] = [];
  const warnings = new ThrottledWarnings((_fields, msg) => lines.push(msg));
  const name = `warn-test-${randomUUID()}`;
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', name);
  const db = createDb(url.toString(), { max: 1, warnings });
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await sql`SELECT 1`.execute(db); // leaves one idle connection in the pool
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name]);
    for (const end = Date.now() + 5_000; lines.length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25));
    expect(lines).toEqual(['postgres: terminating connection due to administrator command']);
  } finally {
    await admin.end();
    await db.destroy();
  }
});
