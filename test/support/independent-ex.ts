import Database from 'better-sqlite3';

/**
 * BIRD's verdict recomputed without any project code: run both queries with plain better-sqlite3 and compare the
 * sets of rows (evaluation.py: `set(predicted_res) == set(ground_truth_res)`).
 */
export function birdCorrect(dbPath: string, goldSql: string, predictedSql: string | null): boolean {
  if (predictedSql === null) return false;
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const rows = (sql: string) => new Set(db.prepare(sql).raw(true).all().map((r) => JSON.stringify(r)));
    const gold = rows(goldSql);
    let pred: Set<string>;
    try {
      pred = rows(predictedSql);
    } catch {
      return false;
    }
    return gold.size === pred.size && [...gold].every((r) => pred.has(r));
  } finally {
    db.close();
  }
}
