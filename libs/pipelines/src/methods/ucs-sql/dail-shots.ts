import { createHash } from 'node:crypto';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import { pooledIndexFor, questionSkeleton } from '../../similarity';
import type { StageContext, StageItem } from '../../stage-context';

/** What DAIL's selection uses of a stage's context. */
type DailContext = Pick<StageContext, 'datasetVersion' | 'item' | 'schema' | 'services'>;
import { dailSelection, multisetJaccard, type DailChoice, type DailOptions } from './dail';
import { dailSkeletonTokens } from './sql-skeleton';

/** A training item with what DAIL compares: its question masked with its own database's schema, its SQL skeleton. */
interface PoolEntry { item: StageItem; maskedQuestion: string; skeleton: string[] }

export interface DailShots {
  /** The draft whose skeleton was compared; null when the draft held no SQL (question similarity alone decided). */
  draftSql: string | null;
  maskedQuestion: string;
  choices: DailChoice[];
}

const pools = new Map<string, Promise<PoolEntry[]>>();
const MAX_CACHED = 4;

/**
 * The masked training pool, computed once per worker process and training set: masking and skeleton parsing cost
 * about a third of a millisecond per training question, which on BIRD's 9,428 would be seconds per target item.
 */
function trainingPool(ctx: DailContext, train: readonly StageItem[]): Promise<PoolEntry[]> {
  const hash = createHash('sha256').update(ctx.datasetVersion);
  for (const t of train) hash.update(`\n${JSON.stringify([t.itemId, t.dbId, t.question, t.goldSql])}`);
  const key = hash.digest('hex');
  let pool = pools.get(key);
  if (!pool) {
    if (pools.size >= MAX_CACHED) pools.delete(pools.keys().next().value!);
    pool = buildPool(ctx, train);
    pool.catch(() => pools.delete(key));
    pools.set(key, pool);
  }
  return pool;
}

async function buildPool(ctx: DailContext, train: readonly StageItem[]): Promise<PoolEntry[]> {
  const schemas = new Map<string, DatabaseSchema>();
  for (const dbId of new Set(train.map((t) => t.dbId))) schemas.set(dbId, await ctx.services.dataset.schema(dbId));
  return train.map((item) => ({ item, maskedQuestion: questionSkeleton(item.question, schemas.get(item.dbId)!), skeleton: dailSkeletonTokens(item.goldSql) }));
}

const rounded = (x: number): number => Number(x.toFixed(6));

/**
 * DAIL selection for the current item: question similarity from the single-vector embeddings of the masked
 * questions (the target masked with its own schema), query similarity between the draft's skeleton and each
 * candidate's gold skeleton, then `dailSelection`.
 */
export async function selectDailShots(ctx: DailContext, train: readonly StageItem[], draftSql: string | null, o: DailOptions): Promise<DailShots> {
  const pool = await trainingPool(ctx, train);
  const index = await pooledIndexFor(await ctx.services.retrieval.encoder(), pool.map((e) => ({ id: e.item.itemId, text: e.maskedQuestion, payload: e })));
  const maskedQuestion = questionSkeleton(ctx.item.question, ctx.schema);
  const draft = draftSql === null ? null : dailSkeletonTokens(draftSql);
  const candidates = (await index.rank(maskedQuestion))
    .filter((hit) => hit.id !== ctx.item.itemId)
    .map((hit) => ({
      id: hit.id,
      questionSimilarity: rounded(hit.score),
      querySimilarity: draft === null ? 0 : rounded(multisetJaccard(draft, hit.payload.skeleton)),
    }));
  return { draftSql, maskedQuestion, choices: dailSelection(candidates, o) };
}
