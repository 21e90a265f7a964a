/** One prediction, in the dataset's order. `sql` null: the pipeline produced no usable query. */
export interface PredictionLine { sql: string | null; dbId: string }

/**
 * Stands in for a missing prediction: a syntax error, so every evaluator scores it wrong (an empty line would be
 * dropped at the end of a Spider file, and an empty statement runs and returns no rows).
 */
export const NO_PREDICTION_SQL = 'SELECT';

/** The official files hold one query per line: line breaks and tabs inside a query become single spaces. */
export function oneLineSql(sql: string | null): string {
  if (sql === null) return NO_PREDICTION_SQL;
  const flat = sql.replace(/[\t\r\n]+/g, ' ').trim();
  return flat.length > 0 ? flat : NO_PREDICTION_SQL;
}

/** Spider's official prediction file: one SQL per line, in gold order. */
export function spiderPredictionFile(lines: PredictionLine[]): string {
  return lines.map((l) => `${oneLineSql(l.sql)}\n`).join('');
}

/** BIRD's official prediction file: `{"0": "SQL\t----- bird -----\tdb_id", ...}` in gold order. */
export function birdPredictionFile(lines: PredictionLine[]): string {
  const out: Record<string, string> = {};
  lines.forEach((l, i) => {
    out[String(i)] = `${oneLineSql(l.sql)}\t----- bird -----\t${l.dbId}`;
  });
  return `${JSON.stringify(out, null, 4)}\n`;
}

/** The gold file matching the prediction files above: `SQL\tdb_id` per line. */
export function goldFile(lines: Array<{ goldSql: string; dbId: string }>): string {
  return lines.map((l) => `${oneLineSql(l.goldSql)}\t${l.dbId}\n`).join('');
}
