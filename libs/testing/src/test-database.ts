import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createDb, migrateToLatest, readMigrations, type Db } from '@sqlsweep/db';

export interface TestDatabase { url: string; name: string; db: Db; drop(): Promise<void> }

function serverUrl(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(baseUrl: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl(baseUrl, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A template database migrated to the current schema, named by the hash of the migrations (built once). */
async function ensureTemplate(baseUrl: string): Promise<string> {
  const migrations = await readMigrations();
  const hash = createHash('sha256').update(migrations.map((m) => m.name + m.up).join('\n')).digest('hex').slice(0, 12);
  const name = `sqlsweep_tpl_${hash}`;
  await withAdmin(baseUrl, async (admin) => {
    await admin.query('SELECT pg_advisory_lock(4242)');
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rowCount) return;
      await admin.query(`CREATE DATABASE ${name}_building`).catch(async () => {
        await admin.query(`DROP DATABASE ${name}_building`);
        await admin.query(`CREATE DATABASE ${name}_building`);
      });
      await migrateToLatest(serverUrl(baseUrl, `${name}_building`));
      await admin.query(`ALTER DATABASE ${name}_building RENAME TO ${name}`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock(4242)');
    }
  });
  return name;
}

/** A fresh database for one test file, copied from the migrated template. */
export async function createTestDatabase(baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'): Promise<TestDatabase> {
  const template = await ensureTemplate(baseUrl);
  const name = `sqlsweep_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(baseUrl, async (admin) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        return;
      } catch (e) {
        // Two copies of one template at the same instant collide ("being accessed by other users"): retry.
        if (attempt >= 20 || (e as { code?: string }).code !== '55006') throw e;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  });
  const url = serverUrl(baseUrl, name);
  const db = createDb(url, { max: 5 });
  return {
    url,
    name,
    db,
    drop: async () => {
      await db.destroy();
      await withAdmin(baseUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
