import type { PlannedStage } from '@sqlsweep/db';
import type { KeyedStage, VariantKeyer } from '@sqlsweep/pipelines';

/** A planned stage and the keyer of its variant (what its estimate reads: `planTimeParams`). */
export interface ChunkStage { stage: PlannedStage; keyer: VariantKeyer }

/**
 * The stages of every (variant, item) in plan order (per variant: its train-items stages, then each evaluated item's
 * graph), keyed, in chunks of at most `chunkSize`. Each variant's keyer is made when its turn comes and dropped after
 * it, so memory holds one chunk and one keyer, however many variants and items the sweep has.
 */
export async function* stageChunks<V extends { id: string }>(
  variants: readonly V[], itemIds: readonly string[], keyerOf: (variant: V) => Promise<VariantKeyer>, chunkSize: number,
): AsyncGenerator<ChunkStage[]> {
  if (!(chunkSize >= 1)) throw new Error(`plan chunk size must be at least 1, got ${chunkSize}`);
  let chunk: ChunkStage[] = [];
  for (const variant of variants) {
    const keyer = await keyerOf(variant);
    const place = (s: KeyedStage) => chunk.push({
      keyer,
      stage: { variantId: variant.id, itemId: s.itemId, stage: s.stage, stageKey: s.key, role: s.role, params: s.params, inputs: s.inputs, isFinal: s.final },
    });
    for (const s of keyer.trainItemStages()) {
      place(s);
      if (chunk.length >= chunkSize) { yield chunk; chunk = []; }
    }
    for (const itemId of itemIds) {
      for (const s of keyer.itemStages(itemId)) place(s);
      if (chunk.length >= chunkSize) { yield chunk; chunk = []; }
    }
  }
  if (chunk.length > 0) yield chunk;
}
