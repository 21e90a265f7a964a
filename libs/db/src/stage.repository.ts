import { sql } from 'kysely';
import { executePrepared, type Db } from './connection';

export interface StageResultInput {
  stageKey: string; stage: string; output: unknown; simulated: boolean;
  inputTokens?: number; cachedInputTokens?: number; outputTokens?: number; costUsd?: number; latencyMs?: number;
  trace?: unknown; runId?: string; variantId?: string; machine: string;
}
export interface StoredStageResult { stageKey: string; stage: string; output: unknown; simulated: boolean; inputTokens: number; outputTokens: number; costUsd: number; latencyMs: number }

export class StageRepository {
  constructor(private readonly db: Db) {}

  /** Writes a result once per key; returns false when another worker got there first. */
  async saveResult(r: StageResultInput): Promise<boolean> {
    return (await this.saveResults([r])).has(r.stageKey);
  }

  /**
   * Writes many results in one statement, each once per key; returns the keys this call wrote. Rows go in key order,
   * so two workers writing overlapping batches wait on each other's keys in the same order and never deadlock.
   */
  async saveResults(results: StageResultInput[]): Promise<Set<string>> {
    if (results.length === 0) return new Set();
    const rs = [...results].sort((a, b) => (a.stageKey < b.stageKey ? -1 : a.stageKey > b.stageKey ? 1 : 0));
    const column = <T>(f: (r: StageResultInput) => T) => rs.map(f);
    const rows = await executePrepared(this.db, 'save-stage-results', sql<{ stage_key: string }>`
      INSERT INTO stage_results (stage_key, stage, output, simulated, input_tokens, cached_input_tokens, output_tokens,
                                 cost_usd, latency_ms, trace, run_id, variant_id, machine)
      SELECT * FROM unnest(${column((r) => r.stageKey)}::text[], ${column((r) => r.stage)}::text[],
        ${column((r) => JSON.stringify(r.output))}::jsonb[], ${column((r) => r.simulated)}::boolean[],
        ${column((r) => r.inputTokens ?? 0)}::integer[], ${column((r) => r.cachedInputTokens ?? 0)}::integer[],
        ${column((r) => r.outputTokens ?? 0)}::integer[], ${column((r) => r.costUsd ?? 0)}::float8[],
        ${column((r) => r.latencyMs ?? 0)}::float8[], ${column((r) => (r.trace === undefined ? null : JSON.stringify(r.trace)))}::jsonb[],
        ${column((r) => r.runId ?? null)}::uuid[], ${column((r) => r.variantId ?? null)}::uuid[], ${column((r) => r.machine)}::text[])
      ON CONFLICT (stage_key) DO NOTHING
      RETURNING stage_key`.compile(this.db));
    return new Set(rows.map((r) => r.stage_key));
  }

  /** Prepared, with the keys as one array parameter: every stage job reads its inputs this way. */
  async getResults(keys: string[]): Promise<Map<string, StoredStageResult>> {
    if (keys.length === 0) return new Map();
    const rows = await executePrepared(this.db, 'stage-results-by-key', sql<StoredStageResult>`
      SELECT stage_key AS "stageKey", stage, output, simulated, input_tokens AS "inputTokens", output_tokens AS "outputTokens",
        cost_usd AS "costUsd", latency_ms AS "latencyMs"
      FROM stage_results WHERE stage_key = ANY(${keys}::text[])`.compile(this.db));
    return new Map(rows.map((r) => [r.stageKey, r]));
  }

  async existingKeys(keys: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < keys.length; i += 5000) {
      const rows = await this.db.selectFrom('stage_results').select('stage_key').where('stage_key', 'in', keys.slice(i, i + 5000)).execute();
      for (const r of rows) found.add(r.stage_key);
    }
    return found;
  }

  /** Records a stage that failed for good, in every running run whose plan contains it. Returns those runs. */
  async recordFailure(stageKey: string, stage: string, error: string): Promise<string[]> {
    const { rows } = await sql<{ run_id: string }>`
      INSERT INTO stage_failures (run_id, stage_key, stage, error)
      SELECT DISTINCT rs.run_id, ${stageKey}, ${stage}, ${error}
      FROM run_stages rs JOIN runs r ON r.id = rs.run_id AND r.status = 'running'
      WHERE rs.stage_key = ${stageKey}
      ON CONFLICT DO NOTHING
      RETURNING run_id`.execute(this.db);
    return rows.map((r) => r.run_id);
  }

  async getTrace(stageKey: string): Promise<unknown> {
    const row = await this.db.selectFrom('stage_results').select('trace').where('stage_key', '=', stageKey).executeTakeFirst();
    return row?.trace;
  }
}
