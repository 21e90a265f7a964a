import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';

export const migrationsDir = join(__dirname, '..', 'migrations');

export interface MigrationFile { name: string; up: string; down: string }

/** The names of the up-migrations in `dir`, in the order they apply. */
async function migrationNames(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.up.sql')).map((f) => f.replace(/\.up\.sql$/, '')).sort();
}

export async function readMigrations(dir = migrationsDir): Promise<MigrationFile[]> {
  return Promise.all(
    (await migrationNames(dir)).map(async (name) => {
      const file = `${name}.up.sql`;
      if (!/^\d{14}_[a-z0-9_]+$/.test(name)) throw new Error(`${join(dir, file)}: migration names must be <YYYYMMDDHHMMSS>_<snake_name>.up.sql`);
      return {
        name,
        up: await readFile(join(dir, file), 'utf8'),
        down: await readFile(join(dir, `${name}.down.sql`), 'utf8').catch(() => {
          throw new Error(`${join(dir, `${name}.down.sql`)}: missing down migration for ${name}`);
        }),
      };
    }),
  );
}

const lockId = 7_305_911; // any constant: serialises concurrent migrators on one database

/** Applies every pending up-migration in name order, each in its own transaction. Returns the names applied. */
export async function migrateToLatest(databaseUrl: string, dir = migrationsDir): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [lockId]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations');
    const done = new Set(rows.map((r) => r.name));
    const applied: string[] = [];
    for (const m of migrations.filter((m) => !done.has(m.name))) {
      await client.query('BEGIN');
      try {
        await client.query(m.up);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [m.name]);
        await client.query('COMMIT');
        applied.push(m.name);
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
      }
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [lockId]).catch(() => undefined);
    await client.end();
  }
}

/**
 * The migrations in `dir` that the database has not applied, read on one connection, without the migrators' lock
 * and without reading the files; null when the database or its schema_migrations table does not exist yet.
 */
export async function pendingMigrations(databaseUrl: string, dir = migrationsDir): Promise<string[] | null> {
  const names = await migrationNames(dir);
  const client = new Client({ connectionString: databaseUrl });
  try {
    await client.connect();
  } catch (e) {
    if ((e as { code?: string }).code === '3D000') return null; // invalid_catalog_name: no such database
    throw e;
  }
  try {
    const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations');
    const done = new Set(rows.map((r) => r.name));
    return names.filter((n) => !done.has(n));
  } catch (e) {
    if ((e as { code?: string }).code === '42P01') return null; // undefined_table: never migrated
    throw e;
  } finally {
    await client.end();
  }
}

/**
 * Creates the database if missing and applies pending migrations, as `ensureDatabase` then `migrateToLatest` do, but
 * for a process that starts often (`sqlsweep status`): when the schema is already at the latest migration, one
 * query says so and nothing else runs. A migration is recorded in the transaction that applies it, so a database
 * that lists every migration has them all, even while another process holds the migrators' lock.
 */
export async function ensureMigrated(databaseUrl: string, dir = migrationsDir): Promise<string[]> {
  const pending = await pendingMigrations(databaseUrl, dir);
  if (pending?.length === 0) return [];
  await ensureDatabase(databaseUrl);
  return migrateToLatest(databaseUrl, dir);
}

/** Reverts the newest `steps` applied migrations. */
export async function migrateDown(databaseUrl: string, steps = 1, dir = migrationsDir): Promise<string[]> {
  const migrations = new Map((await readMigrations(dir)).map((m) => [m.name, m]));
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name DESC LIMIT $1', [steps]);
    for (const { name } of rows) {
      const m = migrations.get(name);
      if (!m) throw new Error(`applied migration ${name} has no file in ${dir}`);
      await client.query('BEGIN');
      await client.query(m.down);
      await client.query('DELETE FROM schema_migrations WHERE name = $1', [name]);
      await client.query('COMMIT');
    }
    return rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

/** Creates the database named in the URL if it does not exist (connecting through the `postgres` database). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((e: { code?: string }) => {
        if (e.code !== '42P04') throw e; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}
