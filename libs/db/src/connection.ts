import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import { Pool, types } from 'pg';
import type { Database } from './schema';

// bigint sums (COUNT, SUM of integers) arrive as strings by default; our counts fit in a double.
types.setTypeParser(types.builtins.INT8, (v) => Number(v));

export type Db = Kysely<Database>;

const pools = new WeakMap<Db, Pool>();

export function createDb(databaseUrl: string, opts: { max?: number } = {}): Db {
  const pool = new Pool({ connectionString: databaseUrl, max: opts.max ?? 10 });
  pool.on('error', () => undefined); // an idle client losing its server is replaced on next checkout
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return db;
}

/**
 * Runs a compiled query as a named prepared statement: each connection plans it once instead of per call. For the
 * queries every stage job runs, whose planning costs more than executing them. One name, one SQL text.
 */
export async function executePrepared<R>(db: Db, name: string, query: CompiledQuery<R>): Promise<R[]> {
  const pool = pools.get(db);
  if (!pool) throw new Error(`executePrepared(${name}): this Kysely instance was not made by createDb`);
  const { rows } = await pool.query({ name, text: query.sql, values: query.parameters as unknown[] });
  return rows as R[];
}
