import { Client } from 'pg';
import { pgErrorCode } from './probe';

/** The same server with another database in the path. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

export function databaseOf(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  return name || 'postgres';
}

/** CREATE DATABASE if missing; safe when several processes race to do it. Returns true when created. */
export async function ensureDatabase(serverUrl: string, database: string): Promise<boolean> {
  const client = new Client({ connectionString: withDatabase(serverUrl, 'postgres'), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
      return true;
    } catch (error) {
      // 42P04 duplicate_database; 23505 when two CREATE DATABASE race on pg_database's unique index
      if (pgErrorCode(error) === '42P04' || pgErrorCode(error) === '23505') return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}
