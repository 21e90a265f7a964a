import type { DatasetRepository, StoredItem } from '@sqlsweep/db';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import { stageImplementations, type LlmCall } from '@sqlsweep/pipelines';
import type { CostEstimate, NeededStageEstimator } from './plan-tally';

/** Prices remembered at most (each by its whole prompt): the prompts of one item's variants, usually far fewer. */
const MEMO_ENTRIES = 2_000;

/**
 * Prices a needed stage from its estimate prompt with the model catalog: an LLM stage certain to skip its call
 * (`skipsFor`) counts neither a call nor tokens, one without an `estimate` counts a call and no tokens; any other
 * stage is not priced. Database schemas are read once each. Counting a prompt's tokens costs far more than rendering
 * it, and variants that differ in temperature or model alone render the same prompt for an item: a price is
 * remembered by what `estimateCall` reads (model, messages, token limits) while the stages of one item come (the
 * planner lists an item's variants together), and forgotten at the next item.
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
  const memo = new Map<string, { inputTokens: number; outputTokens: number; costUsd: number }>();
  let memoItem: string | undefined;
  const price = (itemId: string, call: LlmCall) => {
    if (itemId !== memoItem) {
      memo.clear();
      memoItem = itemId;
    }
    const key = [call.model, call.maxTokens, call.expectedOutputTokens ?? '', ...call.messages.flatMap((m) => [m.role, m.content])].join('\u0000');
    let cost = memo.get(key);
    if (!cost) {
      cost = deps.estimateCall(call);
      if (memo.size >= MEMO_ENTRIES) memo.clear();
      memo.set(key, cost);
    }
    return cost;
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
    const cost = price(s.itemId, impl.estimate(ctx));
    return { llmCalls: 1, inputTokens: cost.inputTokens, outputTokens: cost.outputTokens, costUsd: cost.costUsd };
  };
}
