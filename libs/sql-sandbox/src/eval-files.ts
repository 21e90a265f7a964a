import { readFileSync } from 'node:fs';

export interface GoldLine {
  sql: string;
  dbId: string;
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/);
  } catch (err) {
    throw new Error(`${file}: cannot read: ${(err as Error).message}`);
  }
}

/** `SQL<TAB>db_id` a line, as Spider's dev_gold.sql and BIRD's dev_gold.sql; blank lines are skipped. */
export function readGoldFile(file: string): GoldLine[] {
  return readLines(file)
    .map((l, i) => ({ line: l.trim(), n: i + 1 }))
    .filter((l) => l.line.length > 0)
    .map(({ line, n }) => {
      const tab = line.lastIndexOf('\t');
      if (tab < 0) throw new Error(`${file}: line ${n} is not "SQL<TAB>db_id"`);
      return { sql: line.slice(0, tab).trim(), dbId: line.slice(tab + 1).trim() };
    });
}

/**
 * Spider predictions: one SQL a line, each cut at its first TAB. Every line is an item (a blank line is an empty
 * prediction, which fails), except trailing blank lines at the end of the file.
 */
export function readSpiderPredictions(file: string): string[] {
  const lines = readLines(file);
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  return lines.map((l) => l.split('\t')[0].trim());
}

/**
 * BIRD predictions: a JSON object `{"<idx>": "SQL\t----- bird -----\tdb_id"}`, returned in index order. Keys must
 * be distinct integers in 0..n-1 (so every index is present).
 */
export function readBirdPredictions(file: string): Array<{ sql: string; dbId?: string }> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not a JSON object of predictions: ${(err as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${file}: expected a JSON object`);
  const entries = Object.entries(raw as Record<string, unknown>);
  const out: Array<{ sql: string; dbId?: string }> = [];
  for (const [key, value] of entries) {
    const idx = Number(key);
    if (!Number.isInteger(idx) || idx < 0 || idx >= entries.length) {
      throw new Error(`${file}: key "${key}" is not an index in 0..${entries.length - 1}`);
    }
    if (typeof value !== 'string') {
      out[idx] = { sql: ' ' }; // the official script scores a non-string prediction as an empty query
      continue;
    }
    const [sql, dbId] = value.split('\t----- bird -----\t');
    out[idx] = dbId === undefined ? { sql } : { sql, dbId: dbId.trim() };
  }
  return out;
}

/**
 * Keys of a BIRD prediction file that are not at their own position in the file. The official `package_sqls`
 * pairs predictions with gold lines by position in the file (`sql_data.items()`); sqlsweep pairs by key, so each
 * key listed here is an item whose official verdict was computed against another gold line.
 */
export function birdKeysOutOfPlace(file: string): Array<{ key: number; position: number }> {
  const text = readFileSync(file, 'utf8');
  const out: Array<{ key: number; position: number }> = [];
  // Top-level keys only: in valid JSON a quote inside a string value is escaped, so `"<digits>":` cannot occur there.
  const keyPattern = /(?<!\\)"(\d+)"\s*:/g;
  let position = 0;
  for (let m = keyPattern.exec(text); m; m = keyPattern.exec(text)) {
    const key = Number(m[1]);
    if (key !== position) out.push({ key, position });
    position++;
  }
  return out;
}
