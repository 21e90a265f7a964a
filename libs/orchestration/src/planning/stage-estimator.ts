import type { DatasetRepository, StoredItem } from '@sqlsweep/db';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import { stageImplementations, type LlmCall } from '@sqlsweep/pipelines';
import type { CostEstimate, NeededStageEstimator } from './plan-tally';

/** Prices remembered at most (each with the call it prices): the prompts of one item's variants, usually far fewer. */
const MEMO_ENTRIES = 2_000;

type Cost = { inputTokens: number; outputTokens: number; costUsd: number };

interface Priced {
  call: LlmCall;
  cost: Cost;
}

/** Whether two calls read the same for `estimateCall`: model, token limits, and each message's role and content. */
function pricesAlike(a: LlmCall, b: LlmCall): boolean {
  if (a.model !== b.model || a.maxTokens !== b.maxTokens || a.expectedOutputTokens !== b.expectedOutputTokens || a.messages.length !== b.messages.length) return false;
  for (let i = 0; i < a.messages.length; i++) {
    if (a.messages[i].role !== b.messages[i].role || a.messages[i].content !== b.messages[i].content) return false;
  }
  return true;
}

/**
 * Prices of one item's calls, by what `estimateCall` reads, forgotten at the next item. Found by the length of the
 * last message (the one an item's prompts differ in), then compared field by field: no key string is built or
 * hashed, prompts of different lengths differ at once, and a system message repeated from the template compares by
 * identity.
 */
export class PriceMemo {
  private readonly byLastLength = new Map<number, Priced[]>();
  private entries = 0;
  private item: string | undefined;

  constructor(private readonly estimateCall: (call: LlmCall) => Cost) {}

  price(itemId: string, call: LlmCall): Cost {
    if (itemId !== this.item) {
      this.forget();
      this.item = itemId;
    }
    const last = call.messages.length === 0 ? -1 : call.messages[call.messages.length - 1].content.length;
    let priced = this.byLastLength.get(last);
    const hit = priced?.find((p) => pricesAlike(p.call, call));
    if (hit) return hit.cost;
    const cost = this.estimateCall(call);
    if (this.entries >= MEMO_ENTRIES) {
      this.forget();
      priced = undefined;
    }
    if (priced) priced.push({ call, cost });
    else this.byLastLength.set(last, [{ call, cost }]);
    this.entries++;
    return cost;
  }

  private forget(): void {
    this.byLastLength.clear();
    this.entries = 0;
  }
}

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
  estimateCall(call: LlmCall): Cost;
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
  const prices = new PriceMemo((call) => deps.estimateCall(call));
  return async ({ stage: s, keyer }) => {
    const impl = stageImplementations[s.stage];
    if (s.role !== 'llm' || impl?.kind !== 'llm') return undefined;
    const item = itemById.get(s.itemId)!;
    const ctx = { item, schema: await schemaOf(item.dbId), params: { ...keyer.planTimeParams(s.stage) } };
    const e: CostEstimate = { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    if (impl.skipsFor?.(ctx)) return e;
    e.llmCalls = 1;
    if (!impl.estimate) return e;
    const cost = prices.price(s.itemId, impl.estimate(ctx));
    return { llmCalls: 1, inputTokens: cost.inputTokens, outputTokens: cost.outputTokens, costUsd: cost.costUsd };
  };
}
