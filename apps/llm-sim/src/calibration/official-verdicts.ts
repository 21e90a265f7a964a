import { readFileSync } from 'node:fs';
import type { SpiderHardness } from '@sqlsweep/datasets';
import { HARDNESS_LEVELS } from '../prompt-features';

/** One line of an official-verdicts file: the Spider test-suite evaluator's execution verdict on one dev item. */
export interface OfficialVerdict { i: number; dbId: string; hardness: SpiderHardness; exec: 0 | 1 }

const HARDNESS = new Set<string>(HARDNESS_LEVELS);

/** Reads `official-verdicts/<system>.jsonl` (`{"i", "db_id", "hardness", "exec"}` a line), in item order. */
export function readOfficialVerdicts(file: string): OfficialVerdict[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${file}: cannot read official verdicts: ${(err as Error).message}`);
  }
  return text.split('\n').filter((l) => l.trim()).map((line, n): OfficialVerdict => {
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`${file}: line ${n + 1} is not JSON`);
    }
    if (row.i !== n) throw new Error(`${file}: line ${n + 1}: expected "i": ${n}, got ${JSON.stringify(row.i)}`);
    if (typeof row.db_id !== 'string') throw new Error(`${file}: line ${n + 1}: "db_id" must be a string`);
    if (typeof row.hardness !== 'string' || !HARDNESS.has(row.hardness)) throw new Error(`${file}: line ${n + 1}: "hardness" must be easy, medium, hard or extra`);
    if (row.exec !== 0 && row.exec !== 1) throw new Error(`${file}: line ${n + 1}: "exec" must be 0 or 1`);
    return { i: n, dbId: row.db_id, hardness: row.hardness as SpiderHardness, exec: row.exec };
  });
}
