import type { LlmCachedResponse, LlmCacheEntry } from '@sqlsweep/contracts';
import type { Pool, PoolClient } from 'pg';
import { ASYNC_COMMIT, runScript, withPoolClient, type ScriptStep } from './connection';

// Structurally the ResponseCacheStore of @sqlsweep/llm (libs/llm may not import libs/db, and this file stays free of
// libs/llm so the dependency runs one way only); the stored shape is libs/contracts'.
export type { LlmCacheUsage, LlmCachedResponse, LlmCacheEntry } from '@sqlsweep/contracts';

interface CacheRow {
  output: string;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost_usd: string;
  latency_ms: number;
  simulated: boolean;
  provider: string;
  model: string;
  paid_for_run: string | null;
  paid_for_stage: string | null;
  simulation: LlmCachedResponse['simulation'] | null;
}

const RESPONSE_COLUMNS = `output, input_tokens, cached_input_tokens, output_tokens, cost_usd, latency_ms, simulated, provider,
  model, paid_for_run, paid_for_stage, simulation`;

const INSERT_RESPONSE = `INSERT INTO llm_response_cache
  (cache_key, namespace, provider, model, template_version, output, input_tokens, cached_input_tokens,
   output_tokens, cost_usd, latency_ms, simulated, paid_for_run, paid_for_stage, simulation)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`;

// Claims are no results: a crash loses only those of its last fraction of a second (at most 3 x wal_writer_delay), so
// their statements commit asynchronously (ASYNC_COMMIT). The setting holds for the whole transaction: this repository
// is built on a Pool, whose statements are transactions of their own.

/** A claim is taken when none exists, the old one lapsed (its owner died or stopped renewing), or it is ours already. */
const TAKE_CLAIM = `ON CONFLICT (cache_key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
  WHERE llm_cache_claims.expires_at < now() OR llm_cache_claims.owner = excluded.owner`;

/** Stores a response (first write wins) and releases `owner`'s claim on it ($16), in one statement and transaction. */
const PUT_AND_RELEASE = `WITH released AS (DELETE FROM llm_cache_claims WHERE cache_key = $1 AND owner = $16)
  ${INSERT_RESPONSE} ON CONFLICT (cache_key) DO NOTHING`;

/** Claims key $1 for owner $2 for $3 ms unless a response is stored for it; a row when the claim is held. */
const CLAIM_IF_MISSING = `INSERT INTO llm_cache_claims (cache_key, owner, expires_at)
  SELECT $1, $2, now() + $3 * interval '1 millisecond'
  WHERE NOT EXISTS (SELECT 1 FROM llm_response_cache WHERE cache_key = $1)
  ${TAKE_CLAIM}
  RETURNING 1 AS claimed`;

/** The stored response for a key, as a prepared statement of `runScript`. */
const lookup = (key: string): ScriptStep => ({ name: 'llm-cache-get', query: { sql: `SELECT ${RESPONSE_COLUMNS} FROM llm_response_cache WHERE cache_key = $1`, parameters: [key] } });

function toResponse(row: CacheRow): LlmCachedResponse {
  return {
    output: row.output,
    usage: { inputTokens: row.input_tokens, cachedInputTokens: row.cached_input_tokens, outputTokens: row.output_tokens },
    costUsd: Number(row.cost_usd),
    latencyMs: row.latency_ms,
    simulated: row.simulated,
    provider: row.provider,
    model: row.model,
    ...(row.paid_for_run || row.paid_for_stage ? { paidFor: { runId: row.paid_for_run ?? undefined, stageKey: row.paid_for_stage ?? undefined } } : {}),
    ...(row.simulation ? { simulation: row.simulation } : {}),
  };
}

function insertParams(entry: LlmCacheEntry): unknown[] {
  const r = entry.response;
  return [
    entry.key,
    entry.namespace,
    entry.provider,
    entry.model,
    entry.templateVersion,
    r.output,
    r.usage.inputTokens,
    r.usage.cachedInputTokens,
    r.usage.outputTokens,
    r.costUsd,
    Math.round(r.latencyMs),
    r.simulated,
    r.paidFor?.runId ?? null,
    r.paidFor?.stageKey ?? null,
    r.simulation ? JSON.stringify(r.simulation) : null,
  ];
}

export class LlmCacheRepository {
  constructor(private readonly db: Pool | PoolClient) {}

  /**
   * `runScript` on one of the pool's clients (closed, not reused, when the script failed), or on the given client.
   * `ownTransaction`: the script opens and commits a transaction of its own, so a given client must be in none (its
   * COMMIT would commit the caller's), and one it leaves open and failed is rolled back.
   */
  private async script(steps: ScriptStep[], { ownTransaction = false } = {}): Promise<unknown[][]> {
    if (!('idleCount' in this.db)) {
      const client = this.db as PoolClient & { getTransactionStatus(): string | null };
      if (ownTransaction && client.getTransactionStatus() !== 'I') {
        throw new Error('LlmCacheRepository: lookupOrClaim runs a transaction of its own; the client given is inside one');
      }
      return runScript(client, steps).catch(async (e: unknown) => {
        // The client's state is not known yet (the error comes before the server's ReadyForQuery): a no-op if none is open.
        if (ownTransaction) await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      });
    }
    return withPoolClient(this.db, (client) => runScript(client, steps));
  }

  async get(key: string): Promise<LlmCachedResponse | undefined> {
    const [[row]] = await this.script([lookup(key)]);
    return row ? toResponse(row as CacheRow) : undefined;
  }

  /** First write wins: a duplicate put (a retried job, a second worker) changes nothing. */
  async put(entry: LlmCacheEntry): Promise<void> {
    await this.db.query(`${INSERT_RESPONSE} ON CONFLICT (cache_key) DO NOTHING`, insertParams(entry));
  }

  /**
   * put(entry) and release(entry.key, owner) in one statement, so in one round trip and one transaction: the claim
   * goes exactly when the response is stored (a failed put keeps it).
   */
  async putAndRelease(entry: LlmCacheEntry, owner: string): Promise<void> {
    await this.script([{ name: 'llm-cache-put-and-release', query: { sql: PUT_AND_RELEASE, parameters: [...insertParams(entry), owner] } }]);
  }

  /**
   * The look-up of `key` and, when nothing is stored for it, claim(key, owner, ttlMs), in one round trip: one script
   * (`runScript`) in a READ COMMITTED transaction committed asynchronously (claims are no results, see above).
   * The second statement looks up again with a fresh snapshot, taken after the claim: a response that another owner
   * stored before our claim took hold (after the first statement's snapshot) is found there, so it is never paid for
   * again. `hit` with `claimed` means exactly that: the caller releases the claim and takes the hit. The isolation
   * level is set for the transaction: under a server or role default of REPEATABLE READ or SERIALIZABLE both
   * statements would share one snapshot, and the second would miss that response.
   */
  async lookupOrClaim(key: string, owner: string, ttlMs: number): Promise<{ hit?: LlmCachedResponse; claimed: boolean }> {
    if (!Number.isFinite(ttlMs)) throw new Error(`claim TTL must be a finite number of milliseconds, not ${ttlMs}`);
    const [claimed, found] = await this.script([
      'BEGIN ISOLATION LEVEL READ COMMITTED',
      'SET LOCAL synchronous_commit = off',
      { name: 'llm-cache-claim-if-missing', query: { sql: CLAIM_IF_MISSING, parameters: [key, owner, Math.round(ttlMs)] } },
      lookup(key),
      'COMMIT',
    ], { ownTransaction: true });
    const row = found[0] as CacheRow | undefined;
    return { claimed: claimed.length === 1, ...(row ? { hit: toResponse(row) } : {}) };
  }

  /**
   * True when `owner` now holds the call for `key` for `ttlMs`: no claim existed, the old one had lapsed (its owner
   * died or stopped renewing), or `owner` held it already.
   */
  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `INSERT INTO llm_cache_claims (cache_key, owner, expires_at)
       SELECT $1, $2, now() + $3 * interval '1 millisecond' FROM ${ASYNC_COMMIT}
       ${TAKE_CLAIM}`,
      [key, owner, ttlMs],
    );
    return rowCount === 1;
  }

  /**
   * Extends `owner`'s claims on `keys` by `ttlMs` and puts back any that are missing (a crash loses those committed
   * in its last fraction of a second) or lapsed; returns the keys `owner` holds now. A key another owner holds live is left to it.
   */
  async renew(keys: string[], owner: string, ttlMs: number): Promise<string[]> {
    if (keys.length === 0) return [];
    const { rows } = await this.db.query<{ cache_key: string }>(
      `INSERT INTO llm_cache_claims (cache_key, owner, expires_at)
       SELECT k, $2, now() + $3 * interval '1 millisecond' FROM unnest($1::text[]) AS k, ${ASYNC_COMMIT}
       ON CONFLICT (cache_key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE llm_cache_claims.owner = excluded.owner OR llm_cache_claims.expires_at < now()
       RETURNING cache_key`,
      [keys, owner, ttlMs],
    );
    return rows.map((r) => r.cache_key);
  }

  /** Deletes `owner`'s claim on `key`; one another process took over is left alone. */
  async release(key: string, owner: string): Promise<void> {
    await this.db.query(`DELETE FROM llm_cache_claims USING ${ASYNC_COMMIT} WHERE cache_key = $1 AND owner = $2`, [key, owner]);
  }

  async countByNamespace(namespace: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM llm_response_cache WHERE namespace = $1', [namespace]);
    return Number(rows[0]?.n ?? 0);
  }
}
