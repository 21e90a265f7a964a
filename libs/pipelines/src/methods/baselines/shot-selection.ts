import { createHash } from 'node:crypto';
import type { StageItem } from '../../stage-context';

/** A training example shown before the question. */
export interface Shot { itemId: string; question: string; evidence: string | null; sql: string }

/** Output of the `*.select` stages. */
export interface SelectedShots { shots: Shot[]; metrics: Record<string, number> }

/** Deterministic order of the pool under a seed: sort by a hash of (seed, item id), independent of pool order. */
function seededOrder(pool: readonly StageItem[], seed: string): StageItem[] {
  const rank = (id: string) => createHash('sha256').update(`${seed}\u0000${id}`).digest('hex');
  return [...pool].map((item) => ({ item, r: rank(item.itemId) })).sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0)).map((x) => x.item);
}

function toShot(item: StageItem): Shot {
  return { itemId: item.itemId, question: item.question, evidence: item.evidence, sql: item.goldSql };
}

/** The same k examples for every evaluated item: the first k of the pool under `shotSeed`. */
export function fixedShots(pool: readonly StageItem[], k: number, shotSeed: number): Shot[] {
  return seededOrder(pool, `fixed:${shotSeed}`).slice(0, k).map(toShot);
}

/** k examples drawn per evaluated item, seeded by (`shotSeed`, item), never the item itself. */
export function randomShots(pool: readonly StageItem[], k: number, shotSeed: number, target: Pick<StageItem, 'itemId' | 'question'>): Shot[] {
  const others = pool.filter((p) => p.itemId !== target.itemId && p.question !== target.question);
  return seededOrder(others, `random:${shotSeed}:${target.itemId}`).slice(0, k).map(toShot);
}
