import type { DatasetRepository, StoredItem } from '@sqlsweep/db';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import { stageImplementations, type LlmCall } from '@sqlsweep/pipelines';
import type { CostEstimate, NeededStageEstimator } from './plan-tally';

/**
 * Prices a needed stage from its estimate prompt with the model catalog: an LLM stage certain to skip its call
 * (`skipsFor`) counts neither a call nor tokens, one without an `estimate` counts a call and no tokens; any other
 * stage is not priced. Database schemas are read once each.
 */
export function stageEstimator(deps: {
  datasets: DatasetRepository; versionId: number; items: readonly StoredItem[];
  estimateCall(call: LlmCall): { inputTokens: number; outputTokens: number; costUsd: number };
}): NeededStageEstimator {
  const itemById = new Map(deps.items.map((i) => [i.itemId, i]));
  const schemas = new Map<string, Promise<DatabaseSchema>>();
  const schemaOf = (dbId: string) => {
    let schema = schemas.get(dbId);
    if (!schema) {
      schema = deps.datasets.getDatabase(deps.versionId, dbId).then((d) => d?.schema as DatabaseSchema);
      schemas.set(dbId, schema);
    }
    return schema;
  };
  return async ({ stage: s, keyer }) => {
    const impl = stageImplementations[s.stage];
    if (s.role !== 'llm' || impl?.kind !== 'llm') return undefined;
    const item = itemById.get(s.itemId)!;
    const ctx = { item, schema: await schemaOf(item.dbId), params: { ...keyer.planTimeParams(s.stage) } };
    const e: CostEstimate = { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    if (impl.skipsFor?.(ctx)) return e;
    e.llmCalls = 1;
    if (!impl.estimate) return e;
    const cost = deps.estimateCall(impl.estimate(ctx));
    return { llmCalls: 1, inputTokens: cost.inputTokens, outputTokens: cost.outputTokens, costUsd: cost.costUsd };
  };
}
