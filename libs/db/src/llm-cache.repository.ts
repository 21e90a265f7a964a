import type { LlmCachedResponse, LlmCacheEntry } from '@sqlsweep/contracts';
import type { Pool, PoolClient } from 'pg';

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

export class LlmCacheRepository {
  constructor(private readonly db: Pool | PoolClient) {}

  async get(key: string): Promise<LlmCachedResponse | undefined> {
    const { rows } = await this.db.query<CacheRow>(
      `SELECT output, input_tokens, cached_input_tokens, output_tokens, cost_usd, latency_ms, simulated, provider, model,
              paid_for_run, paid_for_stage, simulation
         FROM llm_response_cache WHERE cache_key = $1`,
      [key],
    );
    const row = rows[0];
    if (!row) return undefined;
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

  /** First write wins: a duplicate put (a retried job, a second worker) changes nothing. */
  async put(entry: LlmCacheEntry): Promise<void> {
    const r = entry.response;
    await this.db.query(
      `INSERT INTO llm_response_cache
         (cache_key, namespace, provider, model, template_version, output, input_tokens, cached_input_tokens,
          output_tokens, cost_usd, latency_ms, simulated, paid_for_run, paid_for_stage, simulation)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (cache_key) DO NOTHING`,
      [
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
      ],
    );
  }

  /**
   * True when `owner` now holds the call for `key` for `ttlMs`: no claim existed, the old one had lapsed (its owner
   * died or stopped renewing), or `owner` held it already.
   */
  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `INSERT INTO llm_cache_claims (cache_key, owner, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (cache_key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE llm_cache_claims.expires_at < now() OR llm_cache_claims.owner = excluded.owner`,
      [key, owner, ttlMs],
    );
    return rowCount === 1;
  }

  /**
   * Extends `owner`'s claims on `keys` by `ttlMs` and puts back any that are missing (a crash empties this unlogged
   * table) or lapsed; returns the keys `owner` holds now. A key another owner holds live is left to it.
   */
  async renew(keys: string[], owner: string, ttlMs: number): Promise<string[]> {
    if (keys.length === 0) return [];
    const { rows } = await this.db.query<{ cache_key: string }>(
      `INSERT INTO llm_cache_claims (cache_key, owner, expires_at)
       SELECT k, $2, now() + $3 * interval '1 millisecond' FROM unnest($1::text[]) AS k
       ON CONFLICT (cache_key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE llm_cache_claims.owner = excluded.owner OR llm_cache_claims.expires_at < now()
       RETURNING cache_key`,
      [keys, owner, ttlMs],
    );
    return rows.map((r) => r.cache_key);
  }

  /** Deletes `owner`'s claim on `key`; one another process took over is left alone. */
  async release(key: string, owner: string): Promise<void> {
    await this.db.query('DELETE FROM llm_cache_claims WHERE cache_key = $1 AND owner = $2', [key, owner]);
  }

  async countByNamespace(namespace: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM llm_response_cache WHERE namespace = $1', [namespace]);
    return Number(rows[0]?.n ?? 0);
  }
}
