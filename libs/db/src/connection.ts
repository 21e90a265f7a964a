import { connectionWarnings, type ThrottledWarnings } from '@sqlsweep/config';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import { Pool, types, type PoolClient } from 'pg';
import type { Database } from './schema';

// bigint sums (COUNT, SUM of integers) arrive as strings by default; our counts fit in a double.
types.setTypeParser(types.builtins.INT8, (v) => Number(v));

export type Db = Kysely<Database>;

/** The pool of a Kysely instance's prepared statements, opened on first use. */
interface PreparedPool { pool?: Pool; open(): Pool }
const preparedPools = new WeakMap<Db, PreparedPool>();

/** `warnings`: where the pool's connection errors are warned about (default: this process's, on stderr). */
export function createDb(databaseUrl: string, opts: { max?: number; warnings?: ThrottledWarnings } = {}): Db {
  const open = (options?: string) => {
    const pool = new Pool({ connectionString: databaseUrl, max: opts.max ?? 10, options });
    warnConnectionErrors(pool, opts.warnings);
    return pool;
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: open() }) });
  const prepared: PreparedPool = { open: () => open(Object.entries(preparedStatementSettings).map(([k, v]) => `-c ${k}=${v}`).join(' ')) };
  preparedPools.set(db, prepared);
  const destroy = db.destroy.bind(db);
  db.destroy = async () => {
    await destroy();
    await prepared.pool?.end();
  };
  return db;
}

/**
 * Warns (throttled) about a pool's connection errors instead of letting them kill the process. An idle client losing
 * its server is replaced on next checkout (the pool's 'error'); a checked-out client that loses it between queries (a
 * Postgres restart mid-transaction) emits 'error' itself, with no listener unless given one here, and its next query
 * fails, so the pool drops it. Both are one kind of warning ('postgres'), logged once per outage burst.
 */
export function warnConnectionErrors(pool: Pool, warnings: ThrottledWarnings = connectionWarnings()): void {
  const warn = warnings.listener('postgres');
  pool.on('error', warn);
  pool.on('connect', (client) => client.on('error', warn));
}

/**
 * The settings of the connections `executePrepared` uses. A generic plan cannot see how few keys a call passes, and at
 * the default `random_page_cost` of 4 probing the results table's index for tens of rows looked dearer than hashing
 * the whole table. The tables these statements read are hot, and in memory a random read costs about a sequential one.
 */
export const preparedStatementSettings = { plan_cache_mode: 'force_generic_plan', random_page_cost: '1.1' } as const;

/**
 * Runs a compiled query as a named prepared statement, planned once per connection instead of per call: for the
 * queries every stage job runs, whose planning costs more than executing them. One name, one SQL text.
 *
 * Postgres re-plans a prepared statement for every call while it guesses that a plan made for the actual parameters
 * beats the generic one. With array parameters it always guesses so, and planning cost 3 to 10 times the execution
 * (0.35 ms against 0.1 ms for the dependents lookup). So these statements run on connections of their own that always
 * use the generic plan; the ad hoc queries keep plans made for their parameters.
 *
 * Each connection gets its own statement names: the embedded Postgres serves every connection from one session,
 * where a second connection preparing the same name would fail.
 */
export async function executePrepared<R>(db: Db, name: string, query: CompiledQuery<R>): Promise<R[]> {
  const prepared = preparedPools.get(db);
  if (!prepared) throw new Error(`executePrepared(${name}): this Kysely instance was not made by createDb`);
  prepared.pool ??= prepared.open();
  const client = await prepared.pool.connect();
  try {
    const { rows } = await client.query({ name: `${name}.${connectionNumber(client)}`, text: query.sql, values: query.parameters as unknown[] });
    client.release();
    return rows as R[];
  } catch (e) {
    client.release(e as Error); // a connection that failed is not reused
    throw e;
  }
}

const connectionNumbers = new WeakMap<PoolClient, number>();
let connectionsSeen = 0;

function connectionNumber(client: PoolClient): number {
  let n = connectionNumbers.get(client);
  if (n === undefined) connectionNumbers.set(client, (n = connectionsSeen++));
  return n;
}
