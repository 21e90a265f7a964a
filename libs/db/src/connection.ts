import { connectionWarnings, type ThrottledWarnings } from '@sqlsweep/config';
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import { Pool, types, type PoolClient } from 'pg';
import type { Database } from './schema';
import { isBatchStepError, runBatch, type BatchStatement, type BatchStepError } from './script-batch';

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
 * Each connection gets its own statement names: the embedded Postgres serves every connection from one session (of
 * every process), where a second connection preparing the same name would fail.
 */
export function executePrepared<R>(db: Db, name: string, query: CompiledQuery<R>): Promise<R[]> {
  return withPreparedClient(db, `executePrepared(${name})`, async (client) => {
    const { rows } = await client.query({ name: `${name}.${connectionId(client)}`, text: query.sql, values: query.parameters as unknown[] });
    return rows as R[];
  });
}

/** Runs `use` on a connection of `db`'s prepared-statement pool (opened on first use). */
function withPreparedClient<T>(db: Db, caller: string, use: (client: PoolClient) => Promise<T>): Promise<T> {
  const prepared = preparedPools.get(db);
  if (!prepared) throw new Error(`${caller}: this Kysely instance was not made by createDb`);
  prepared.pool ??= prepared.open();
  return withPoolClient(prepared.pool, use);
}

/** Runs `use` on a connection of `pool`; a connection that failed is closed, not reused. */
export async function withPoolClient<T>(pool: Pool, use: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    const result = await use(client);
    client.release();
    return result;
  } catch (e) {
    client.release(e as Error);
    throw e;
  }
}

/**
 * Joined into a statement (`FROM ..., ${ASYNC_COMMIT}`): its transaction commits without waiting for its WAL to reach
 * disk, the setting local to the transaction and evaluated once by the one-row join. For what a crash may lose
 * because it is computed again for nothing (see docs/architecture.md, "Durability follows cost").
 */
export const ASYNC_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

/**
 * A step of a script: one statement without parameters (`BEGIN`, `COMMIT`, `SET LOCAL ...`), or a named query (its
 * SQL and parameters, as Kysely compiles them).
 */
export type ScriptStep = string | { name: string; query: Pick<CompiledQuery<unknown>, 'sql' | 'parameters'> };

/**
 * `runScript` on the connections of `executePrepared`. For a write committed and then a read that must see it
 * (`BEGIN; <write>; COMMIT; <read>`), which would otherwise take two round trips.
 */
export function executeScript(db: Db, steps: ScriptStep[]): Promise<unknown[][]> {
  return withPreparedClient(db, 'executeScript', (client) => runScript(client, steps));
}

/**
 * The statements `runScript` has prepared on each connection (name -> SQL text), and the generation their server-side
 * names carry: a batch that failed while preparing leaves unknown which it prepared, so the next prepares afresh.
 */
const preparedNames = new WeakMap<PoolClient, { names: Map<string, string>; generation: number }>();

/**
 * Runs `steps` on `client` in one round trip, as one extended-protocol batch with a single Sync (`runBatch`); returns
 * the rows of each named query, in order. A named query is prepared once per connection, in the batch of its first
 * use there, and its parameters are bound, not inlined. A step that fails makes the server skip the rest, and may
 * leave the connection in a failed transaction, for the caller to end or the pool to close; the server's error then
 * says which query failed and holds the rows of those before it (ScriptStepError).
 */
export async function runScript(client: PoolClient, steps: ScriptStep[]): Promise<unknown[][]> {
  let prepared = preparedNames.get(client);
  if (!prepared) preparedNames.set(client, (prepared = { names: new Map(), generation: 0 }));
  const texts = new Map(prepared.names);
  for (const step of steps) {
    if (typeof step === 'string') continue;
    const known = texts.get(step.name);
    // As pg does for executePrepared: a name run with another text would otherwise execute the first one.
    if (known !== undefined && known !== step.query.sql) throw new Error(`runScript: ${step.name} was prepared for another statement`);
    texts.set(step.name, step.query.sql);
  }
  const { names, generation } = prepared;
  const tag = `${connectionId(client)}_${generation}`;
  let preparing = false;
  const statements = steps.map((step): BatchStatement => {
    if (typeof step === 'string') return { name: '', text: step, parse: true, values: [] };
    const parse = !names.has(step.name);
    names.set(step.name, step.query.sql);
    preparing ||= parse;
    return { name: scriptStatementName(step.name, tag), text: step.query.sql, parse, values: [...step.query.parameters] };
  });
  try {
    const rows = await runBatch(client, statements);
    return namedStepRows(steps, rows);
  } catch (e) {
    // In place, once per generation: a batch queued behind this one on the same client may fail for the same reason.
    if (preparing && prepared.generation === generation) {
      prepared.names.clear();
      prepared.generation++;
    }
    throw isBatchStepError(e) ? scriptStepError(e, steps) : e;
  }
}

/** The rows of a script's named queries, in order: what runScript returns of the rows of all its steps. */
const namedStepRows = (steps: ScriptStep[], rows: unknown[][]) => rows.filter((_, i) => typeof steps[i] !== 'string');

/**
 * The server's error for a step of a script, with which of its named queries failed (`failedQuery`, an index into
 * what runScript returns; undefined when a statement without parameters did) and the rows of those before it.
 */
export type ScriptStepError = Error & { failedQuery?: number; completedQueries: unknown[][] };

export function isScriptStepError(e: unknown): e is ScriptStepError {
  return e instanceof Error && Array.isArray((e as Partial<ScriptStepError>).completedQueries);
}

function scriptStepError(e: BatchStepError, steps: ScriptStep[]): ScriptStepError {
  const failed = steps[e.batchStep];
  const failedQuery = failed === undefined || typeof failed === 'string' ? undefined : namedStepRows(steps.slice(0, e.batchStep), e.completedRows).length;
  return Object.assign(e, { failedQuery, completedQueries: namedStepRows(steps, e.completedRows) });
}

/** Apart from `executePrepared`'s names: a session's prepared statements share one namespace. */
const scriptStatementName = (name: string, connection: string) => `script_${name.replace(/\W/g, '_')}_${connection}`;

/** This process's part of a connection's id: processes that share the embedded Postgres's one session number their connections alike. */
const processTag = randomBytes(4).toString('hex');
const connectionIds = new WeakMap<PoolClient, string>();
let connectionsSeen = 0;

/** A connection's part of its statement names, `<process tag>_<number>`: unique across processes. */
function connectionId(client: PoolClient): string {
  let id = connectionIds.get(client);
  if (id === undefined) connectionIds.set(client, (id = `${processTag}_${connectionsSeen++}`));
  return id;
}
