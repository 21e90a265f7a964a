import { sql, type CompiledQuery } from 'kysely';
import { ASYNC_COMMIT, executePrepared, executeScript, isScriptStepError, type Db } from './connection';
import { itemsEndingWithQuery, readyDependentsQuery, type ClosedItems, type ReadyStage } from './run.repository';

export interface StageResultInput {
  stageKey: string; stage: string; output: unknown; simulated: boolean;
  inputTokens?: number; cachedInputTokens?: number; outputTokens?: number; costUsd?: number; latencyMs?: number;
  trace?: unknown; runId?: string; variantId?: string; machine: string;
  /**
   * The answer came from the response cache, so this execution paid nothing for it; `costUsd` is still what the call
   * that produced it cost. A paid write of the same key replaces a reused one (see saveResults).
   */
  reused?: boolean;
}
/** A stored result; `storedBytes`: the size of its output as stored (compressed where Postgres compressed it). */
export interface StoredStageResult { stageKey: string; stage: string; output: unknown; simulated: boolean; inputTokens: number; outputTokens: number; costUsd: number; latencyMs: number; storedBytes: number }

export class StageRepository {
  constructor(private readonly db: Db) {}

  /** Writes a result once per key; returns false when another worker got there first. */
  async saveResult(r: StageResultInput): Promise<boolean> {
    return (await this.saveResults([r])).has(r.stageKey);
  }

  /**
   * Writes many results in one statement, each once per key; returns the keys this call wrote. Rows go in key order,
   * so two workers writing overlapping batches wait on each other's keys in the same order and never deadlock. They
   * travel as one JSON document: parsed once, where an array parameter per column made Postgres parse an array
   * literal and then each JSON element in it.
   *
   * The output is never replaced, but the accounting of a reused row is: when two executions of one stage raced and
   * the one answered from the response cache wrote first, the paid one's write takes over the row's tokens, latency,
   * run and `reused = false`, so the run that paid is charged once (its output is the same cached answer).
   *
   * `durable: false` commits asynchronously (`synchronous_commit = off` for this statement's transaction): the rows are
   * visible to every session at once, but a Postgres crash in the next fraction of a second may lose them. Only for
   * results that cost nothing to compute again (see docs/architecture.md, "Durability follows cost").
   */
  async saveResults(results: StageResultInput[], opts: { durable?: boolean } = {}): Promise<Set<string>> {
    if (results.length === 0) return new Set();
    const written = await executePrepared(this.db, ...saveStep(this.db, results, opts.durable ?? true));
    return insertedKeys(written);
  }

  /**
   * `saveResults`, committed, and then the stages of running runs that read any of `readyKeys` and are now ready
   * (RunRepository.readyDependents), in one round trip: the lookup starts after the commit, so of two inputs of a
   * stage stored at once by different workers, the later lookup sees both. With `closeItemsEndingWith`, the same
   * round trip then writes the item results those final stages finish (RunRepository.materializeItemResultsEndingWith)
   * and returns their runs as `closed`; should that step fail, what came before it stands and `closed` is left out,
   * for the caller to close the items on its own. Returns the keys written and the ready stages. A failure may come
   * before or after the commit: the results are then stored or not, and storing them again is harmless.
   */
  async saveResultsAndFindReady(results: StageResultInput[], readyKeys: string[], opts: { durable?: boolean; closeItemsEndingWith?: string[] } = {}): Promise<{ written: Set<string>; ready: ReadyStage[]; closed?: ClosedItems }> {
    const lookup = { name: 'ready-dependents', query: readyDependentsQuery(this.db, readyKeys) };
    const finals = opts.closeItemsEndingWith ?? [];
    const close = finals.length ? [{ name: 'materialize-final-keys', query: itemsEndingWithQuery(this.db, finals) }] : [];
    const save = results.length ? saveStep(this.db, results, opts.durable ?? true) : undefined;
    const queries = save ? ['BEGIN', { name: save[0], query: save[1] }, 'COMMIT', lookup, ...close] : [lookup, ...close];
    let rows: unknown[][];
    try {
      rows = await executeScript(this.db, queries);
    } catch (e) {
      const closing = save ? 2 : 1;
      if (!close.length || !isScriptStepError(e) || e.failedQuery !== closing) throw e;
      rows = e.completedQueries;
    }
    const [written, ready, closed] = save ? rows : [[], ...rows];
    return {
      written: insertedKeys(written as Array<{ stage_key: string; inserted: boolean }>), ready: ready as ReadyStage[],
      ...(closed ? { closed: closed as ClosedItems } : {}),
    };
  }

  /** Prepared, with the keys as one array parameter: every stage job reads its inputs this way. */
  async getResults(keys: string[]): Promise<Map<string, StoredStageResult>> {
    if (keys.length === 0) return new Map();
    const rows = await executePrepared(this.db, 'stage-results-by-key', sql<StoredStageResult>`
      SELECT stage_key AS "stageKey", stage, output, simulated, input_tokens AS "inputTokens", output_tokens AS "outputTokens",
        cost_usd AS "costUsd", latency_ms AS "latencyMs", pg_column_size(output) AS "storedBytes"
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

  /**
   * Records a stage that failed for good, in every running run whose plan contains it and holds no result for it, and
   * with it every stage of those runs downstream of it (transitively): they can never run, so their items, those that
   * read a failed training-set stage included, are closed as errored. Returns those runs.
   */
  async recordFailure(stageKey: string, stage: string, error: string): Promise<string[]> {
    const { rows } = await sql<{ run_id: string }>`
      WITH RECURSIVE failed_in AS (
        SELECT DISTINCT rs.run_id FROM run_stages rs JOIN runs r ON r.id = rs.run_id AND r.status = 'running'
        WHERE rs.stage_key = ${stageKey} AND NOT EXISTS (SELECT 1 FROM stage_results sr WHERE sr.stage_key = ${stageKey})
      ), blocked (run_id, stage_key, stage) AS (
        SELECT rs.run_id, rs.stage_key, rs.stage FROM failed_in f
          JOIN run_stages rs ON rs.run_id = f.run_id AND rs.input_keys @> ARRAY[${stageKey}]::text[]
        UNION
        SELECT rs.run_id, rs.stage_key, rs.stage FROM blocked b
          JOIN run_stages rs ON rs.run_id = b.run_id AND rs.input_keys @> ARRAY[b.stage_key]
      )
      INSERT INTO stage_failures (run_id, stage_key, stage, error)
      SELECT run_id, ${stageKey}, ${stage}, ${error} FROM failed_in
      UNION ALL
      SELECT b.run_id, b.stage_key, b.stage, 'input ' || ${stage}::text || ' failed: ' || ${error}::text FROM blocked b
        WHERE NOT EXISTS (SELECT 1 FROM stage_results sr WHERE sr.stage_key = b.stage_key)
      ON CONFLICT DO NOTHING
      RETURNING run_id`.execute(this.db);
    return [...new Set(rows.map((r) => r.run_id))];
  }

  async getTrace(stageKey: string): Promise<unknown> {
    const row = await this.db.selectFrom('stage_results').select('trace').where('stage_key', '=', stageKey).executeTakeFirst();
    return row?.trace;
  }
}

/**
 * The insert of `saveResults` as a named statement, rows in key order (see there). Not durable: committed
 * asynchronously (ASYNC_COMMIT joined to the document's rows).
 */
function saveStep(db: Db, results: StageResultInput[], durable: boolean): [string, CompiledQuery<{ stage_key: string; inserted: boolean }>] {
  const rows = [...paidFirstPerKey(results)].sort((a, b) => (a.stageKey < b.stageKey ? -1 : a.stageKey > b.stageKey ? 1 : 0)).map((r) => ({
    stage_key: r.stageKey, stage: r.stage, output: r.output, simulated: r.simulated,
    input_tokens: r.inputTokens ?? 0, cached_input_tokens: r.cachedInputTokens ?? 0, output_tokens: r.outputTokens ?? 0,
    cost_usd: r.costUsd ?? 0, latency_ms: r.latencyMs ?? 0, trace: r.trace ?? null, run_id: r.runId ?? null, variant_id: r.variantId ?? null,
    machine: r.machine, reused: r.reused ?? false,
  }));
  // A JSON null comes out of the document as SQL NULL: an output of null is stored as JSON null, as it was given.
  // xmax = 0 only on a row this statement inserted; an updated one (a paid write over a reused one) was written before.
  const query = sql<{ stage_key: string; inserted: boolean }>`
      INSERT INTO stage_results (stage_key, stage, output, simulated, input_tokens, cached_input_tokens, output_tokens,
                                 cost_usd, latency_ms, trace, run_id, variant_id, machine, reused)
      SELECT stage_key, stage, coalesce(output, 'null'::jsonb), simulated, input_tokens, cached_input_tokens, output_tokens,
        cost_usd, latency_ms, trace, run_id, variant_id, machine, reused
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(stage_key text, stage text, output jsonb, simulated boolean,
        input_tokens integer, cached_input_tokens integer, output_tokens integer, cost_usd float8, latency_ms float8, trace jsonb,
        run_id uuid, variant_id uuid, machine text, reused boolean) ${sql.raw(durable ? '' : `, ${ASYNC_COMMIT}`)}
      ON CONFLICT (stage_key) DO UPDATE SET
        input_tokens = excluded.input_tokens, cached_input_tokens = excluded.cached_input_tokens, output_tokens = excluded.output_tokens,
        cost_usd = excluded.cost_usd, latency_ms = excluded.latency_ms, run_id = excluded.run_id, variant_id = excluded.variant_id,
        machine = excluded.machine, reused = false
      WHERE stage_results.reused AND NOT excluded.reused
      RETURNING stage_key, (xmax = 0) AS inserted`.compile(db);
  return [durable ? 'save-stage-results' : 'save-stage-results-async', query];
}

const insertedKeys = (written: Array<{ stage_key: string; inserted: boolean }>) => new Set(written.filter((r) => r.inserted).map((r) => r.stage_key));

/** One result per key (a statement may not update a row twice), a paid one where there is one. */
function paidFirstPerKey(results: StageResultInput[]): StageResultInput[] {
  const byKey = new Map<string, StageResultInput>();
  for (const r of results) {
    const seen = byKey.get(r.stageKey);
    if (!seen || (seen.reused && !r.reused)) byKey.set(r.stageKey, r);
  }
  return [...byKey.values()];
}
