import { readFileSync } from 'node:fs';
import type { SchemaNames } from '@sqlsweep/pipelines/src/similarity/question-skeleton';
import { questionSkeleton } from '@sqlsweep/pipelines/src/similarity/question-skeleton';
import { dailSelection, multisetJaccard, type DailOptions } from '@sqlsweep/pipelines/src/methods/ucs-sql/dail';
import { dailSkeletonTokens } from '@sqlsweep/pipelines/src/methods/ucs-sql/sql-skeleton';
import type { StageItem } from '@sqlsweep/pipelines';

/** UCS-SQL's DAIL defaults (libs/contracts ucs-sql grid): five examples, τ = 0.9 on the coarse DAIL skeleton. */
export const DAIL_OPTIONS: DailOptions = { k: 5, threshold: 0.9 };

/** Table and column names of every database in a Spider `tables.json` (training databases ship no SQLite file). */
export function readSchemaNames(tablesJson: string): Map<string, SchemaNames> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(tablesJson, 'utf8'));
  } catch (err) {
    throw new Error(`${tablesJson}: cannot read: ${(err as Error).message}`);
  }
  if (!Array.isArray(raw)) throw new Error(`${tablesJson}: expected a JSON array of database schemas`);
  const schemas = new Map<string, SchemaNames>();
  for (const [n, entry] of raw.entries()) {
    const e = entry as { db_id?: unknown; table_names_original?: unknown; column_names_original?: unknown };
    if (typeof e.db_id !== 'string' || !Array.isArray(e.table_names_original) || !Array.isArray(e.column_names_original)) {
      throw new Error(`${tablesJson}: entry ${n} needs db_id, table_names_original and column_names_original`);
    }
    const tables = (e.table_names_original as string[]).map((name) => ({ name, columns: [] as Array<{ name: string }> }));
    for (const [table, column] of e.column_names_original as Array<[number, string]>) if (table >= 0) tables[table]?.columns.push({ name: column });
    schemas.set(e.db_id, { tables });
  }
  return schemas;
}

/** Word counts of a masked question, L2-normalised. */
function bagOfWords(masked: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of masked.toLowerCase().match(/[a-z_]+|\d+/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  const norm = Math.sqrt([...counts.values()].reduce((s, c) => s + c * c, 0)) || 1;
  for (const [w, c] of counts) counts.set(w, c / norm);
  return counts;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let s = 0;
  for (const [w, x] of a) s += x * (b.get(w) ?? 0);
  return s;
}

type Candidate = { id: string; questionSimilarity: number; querySimilarity: number };

/** The score of the n-th best candidate (ties included by the caller's `>=`); -Infinity when there are fewer. */
function nthBest(candidates: readonly Candidate[], n: number): number {
  const scores = candidates.map((c) => c.questionSimilarity).sort((a, b) => b - a);
  return scores.length >= n ? scores[n - 1]! : -Infinity;
}

/**
 * The candidates `dailSelection` can choose from, so that it sorts a few dozen instead of the whole training set:
 * the k best by question similarity among those at τ, and the 2k best of all (the fill skips at most k taken ones).
 * Ties at the cut stay in, so the choice is the same as over every candidate.
 */
function contenders(candidates: readonly Candidate[], o: DailOptions): Candidate[] {
  const matched = candidates.filter((c) => c.querySimilarity >= o.threshold);
  const matchedCut = nthBest(matched, o.k);
  const fillCut = nthBest(candidates, 2 * o.k);
  return candidates.filter((c) => (c.querySimilarity >= o.threshold && c.questionSimilarity >= matchedCut) || c.questionSimilarity >= fillCut);
}

interface PoolEntry { item: StageItem; words: Map<string, number>; skeleton: string[] }

/**
 * DAIL-SQL's example selection (Gao et al. 2024, 4.3) as UCS-SQL runs it (libs/pipelines ucs-sql/dail*.ts), usable in
 * a script without the retrieval services: questions masked with their own database's names (`questionSkeleton`),
 * query similarity as the multiset Jaccard of DAIL skeletons between a draft and each candidate's gold, then
 * `dailSelection` (skeleton matches at τ first, question similarity fills up). One substitution: question similarity
 * is the cosine of the masked questions' word counts instead of a sentence encoder's embeddings.
 */
export class DailExamplePool {
  private readonly pool: PoolEntry[];
  private readonly byId: Map<string, StageItem>;

  constructor(train: readonly StageItem[], private readonly schemas: ReadonlyMap<string, SchemaNames>) {
    this.pool = train.map((item) => ({ item, words: bagOfWords(questionSkeleton(item.question, this.schemaOf(item.dbId))), skeleton: dailSkeletonTokens(item.goldSql) }));
    this.byId = new Map(train.map((item) => [item.itemId, item]));
  }

  private schemaOf(dbId: string): SchemaNames {
    const schema = this.schemas.get(dbId);
    if (!schema) throw new Error(`DAIL examples: no schema for database ${dbId} in tables.json`);
    return schema;
  }

  /** The k training items DAIL shows for `target`, given a draft SQL for it (null: question similarity alone). */
  select(target: Pick<StageItem, 'itemId' | 'dbId' | 'question'>, draftSql: string | null, o: DailOptions = DAIL_OPTIONS): StageItem[] {
    const words = bagOfWords(questionSkeleton(target.question, this.schemaOf(target.dbId)));
    const draft = draftSql === null ? null : dailSkeletonTokens(draftSql);
    const candidates = this.pool
      .filter((e) => e.item.itemId !== target.itemId)
      .map((e) => ({
        id: e.item.itemId,
        questionSimilarity: Number(cosine(words, e.words).toFixed(6)),
        querySimilarity: draft === null ? 0 : Number(multisetJaccard(draft, e.skeleton).toFixed(6)),
      }));
    return dailSelection(contenders(candidates, o), o).map((c) => this.byId.get(c.id)!);
  }
}
