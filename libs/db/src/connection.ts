import { Kysely, PostgresDialect } from 'kysely';
import { Pool, types } from 'pg';
import type { Database } from './schema';

// bigint sums (COUNT, SUM of integers) arrive as strings by default; our counts fit in a double.
types.setTypeParser(types.builtins.INT8, (v) => Number(v));

export type Db = Kysely<Database>;

export function createDb(databaseUrl: string, opts: { max?: number } = {}): Db {
  const pool = new Pool({ connectionString: databaseUrl, max: opts.max ?? 10 });
  pool.on('error', () => undefined); // an idle client losing its server is replaced on next checkout
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
