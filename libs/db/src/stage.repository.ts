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
    const inserted = await executePrepared(this.db, 'save-stage-result', this.db
      .insertInto('stage_results')
      .values({
        stage_key: r.stageKey, stage: r.stage, output: JSON.stringify(r.output), simulated: r.simulated,
        input_tokens: r.inputTokens ?? 0, cached_input_tokens: r.cachedInputTokens ?? 0, output_tokens: r.outputTokens ?? 0,
        cost_usd: r.costUsd ?? 0, latency_ms: r.latencyMs ?? 0, trace: r.trace === undefined ? null : JSON.stringify(r.trace),
        run_id: r.runId ?? null, variant_id: r.variantId ?? null, machine: r.machine,
      })
      .onConflict((c) => c.column('stage_key').doNothing())
      .returning('stage_key')
      .compile());
    return inserted.length > 0;
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
