import type { ItemDetailDto } from '@sqlsweep/contracts';
import type { ReportRepository } from '@sqlsweep/db';
import { stageTraceDto } from './views';

/** One item of a run: the dataset's item, and per variant its result (if any) and every planned stage; undefined when the run has no such item. */
export async function itemDetail(repo: ReportRepository, runId: string, itemId: string): Promise<ItemDetailDto | undefined> {
  const item = await repo.datasetItemOfRun(runId, itemId);
  if (!item) return undefined;
  const variants = await repo.variants(runId);
  const perVariant = await Promise.all(variants.map(async (v) => {
    const [results, stages] = await Promise.all([
      repo.itemResults(runId, { variantId: v.id, itemId, sort: 'item_id', order: 'asc', limit: 1, offset: 0 }),
      repo.stageTraces(runId, v.id, itemId),
    ]);
    return { variantId: v.id, label: v.label, result: results.items[0] ?? null, stages: stages.map(stageTraceDto) };
  }));
  return {
    runId, ...item, variants: perVariant,
    simulated: perVariant.some((v) => v.result?.simulated === true || v.stages.some((s) => s.simulated)),
  };
}
