import { queryRows } from '@sqlsweep/db';
import { type RunningCli, type TestDatabase, waitFor } from '@sqlsweep/testing';

type Db = TestDatabase['db'];

export function runRow(db: Db, runId: string) {
  return db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
}

/** Stored stage results, of every run, or of one stage. */
export async function storedStageResults(db: Db, stage?: string): Promise<number> {
  let query = db.selectFrom('stage_results').select((eb) => eb.fn.countAll<number>().as('n'));
  if (stage) query = query.where('stage', '=', stage);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** A run's item results: how many rows, how many distinct (variant, item) pairs, how many errored. */
export async function itemResultCounts(db: Db, runId: string): Promise<{ n: number; distinct_items: number; errored: number }> {
  const rows = await queryRows<{ n: number; distinct_items: number; errored: number }>(db)`
    SELECT count(*)::int AS n, count(DISTINCT (variant_id, item_id))::int AS distinct_items,
           count(*) FILTER (WHERE errored)::int AS errored
    FROM item_results WHERE run_id = ${runId}`;
  return rows[0];
}

/** Waits until `stage` has at least `atLeast` stored results, failing if `cli` exits first; resolves with the count. */
export function waitForStageResults(db: Db, stage: string, atLeast: number, cli: RunningCli, timeoutMs = 300_000): Promise<number> {
  return waitFor('the sweep to be under way', async () => {
    if (cli.exited) throw new Error(`sqlsweep exited before the sweep got going:\n${cli.stdout}\n${cli.stderr}`);
    const n = await storedStageResults(db, stage);
    return n >= atLeast ? n : undefined;
  }, timeoutMs);
}
