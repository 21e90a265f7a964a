import type { PlannedStage } from '@sqlsweep/db';
import { trainSetStages, type KeyedStage, type VariantKeyer } from '@sqlsweep/pipelines';

/** A planned stage and the keyer of its variant (what its estimate reads: `planTimeParams`). */
export interface ChunkStage { stage: PlannedStage; keyer: VariantKeyer }

/**
 * The plan's stages, keyed, in chunks of at most `chunkSize`: first every variant's train-items stages and training
 * sets (variant by variant), then item by item every variant's graph for that item. Item-major, so that the variants
 * of one item, whose LLM stages often render the same prompt (they differ in temperature or model only), come
 * together and their estimates can be shared without remembering a prompt per item. Memory holds one chunk and the variants' keyers,
 * however many items the sweep has.
 */
export function* stageChunks<V extends { id: string }>(
  variants: ReadonlyArray<{ variant: V; keyer: VariantKeyer }>, itemIds: readonly string[], chunkSize: number,
): Generator<ChunkStage[]> {
  if (!(chunkSize >= 1)) throw new Error(`plan chunk size must be at least 1, got ${chunkSize}`);
  let chunk: ChunkStage[] = [];
  const place = (variantId: string, keyer: VariantKeyer, s: KeyedStage) => chunk.push({
    keyer,
    stage: { variantId, itemId: s.itemId, stage: s.stage, stageKey: s.key, role: s.role, params: s.params, inputs: s.inputs, isFinal: s.final },
  });
  for (const { variant, keyer } of variants) {
    for (const s of keyer.trainItemStages()) {
      place(variant.id, keyer, s);
      if (chunk.length >= chunkSize) { yield chunk; chunk = []; }
    }
  }
  for (const itemId of itemIds) {
    for (const { variant, keyer } of variants) {
      for (const s of keyer.itemStages(itemId)) {
        place(variant.id, keyer, s);
        if (chunk.length >= chunkSize) { yield chunk; chunk = []; }
      }
    }
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * The stage kinds of a plan in the order they first appear when the plan is listed variant by variant (its
 * train-items stages, the training sets read from them, then its item stages, each in graph order): the order
 * `byStage` reports them in.
 */
export function stageKindOrder(graphs: ReadonlyArray<ReadonlyArray<{ stage: string; scope?: string; inputs: Record<string, string> }>>, hasTrainItems: boolean): string[] {
  const order = new Set<string>();
  for (const graph of graphs) {
    if (hasTrainItems) {
      for (const node of graph) if (node.scope === 'train-items') order.add(node.stage);
      for (const set of trainSetStages(graph)) order.add(set);
    }
    for (const node of graph) if (node.scope !== 'train-items') order.add(node.stage);
  }
  return [...order];
}
