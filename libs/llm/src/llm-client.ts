import { LlmBatches, type LlmBatchItemResult, type LlmBatchJob } from './batches';
import { BudgetedCaller } from './budgeted-call';
import { OutputCaps, type OutputCapSettings } from './output-caps';
import type { LlmCallObservation } from './call-pace';
import type { ModelCatalog } from './model-catalog';
import { apiModelOf, ModelResolver } from './model-resolution';
import { costUsd } from './pricing';
import type { ProviderBatchStatus } from './providers/provider';
import type { RateBudget } from './rate-budget';
import type { ResponseCacheStore } from './response-cache';
import { SingleFlightCalls } from './single-flight';
import { estimateTokens } from './tokens';
import type { LlmRequest, LlmResponse } from './types';

export type { LlmBatchItemResult, LlmBatchJob } from './batches';

export interface LlmClientOptions {
  catalog: ModelCatalog;
  /** Where API keys and base URLs are read from (names given by the catalog); usually the parsed process env. */
  env: Record<string, string | undefined>;
  cache?: ResponseCacheStore;
  budget?: RateBudget;
  /** Every call and cache event; those an operator should see carry `severity: 'warn'`. */
  logger?: (obj: object) => void;
  /**
   * Claims on calls in flight (when the cache store supports them): a claim lives `ttlMs` (default 10 s) unless its
   * owner renews it, every `renewEveryMs` (default a fifth of the TTL). `owner` names this client (default: host/pid/random).
   */
  claims?: { ttlMs?: number; renewEveryMs?: number; owner?: string };
  /** Every call a provider answered, with its budget charge, wait and latency (see LlmCallPace). */
  onCall?: (o: LlmCallObservation) => void;
  /** Backoff of cache puts retried while the store is unreachable (defaults 250 ms doubling to 2 s). */
  keptRetry?: { firstMs?: number; maxMs?: number };
  /** How the `max_tokens` sent per stage is learned from its answers (OutputCaps; default `defaultOutputCapSettings`). */
  outputCaps?: OutputCapSettings;
}

/**
 * Providers, shared rate budget, response cache and cost accounting behind one `complete()`: the parts are
 * ModelResolver (catalog and provider clients), BudgetedCaller (one paid call), SingleFlightCalls (cache, one call per
 * key) and LlmBatches (batch APIs).
 */
export class LlmClient {
  private readonly models: ModelResolver;
  private readonly caller: BudgetedCaller;
  private readonly flights: SingleFlightCalls;
  private readonly batches: LlmBatches;

  constructor(opts: LlmClientOptions) {
    const log = (obj: object) => opts.logger?.(obj);
    this.models = new ModelResolver(opts.catalog, opts.env);
    this.caller = new BudgetedCaller(this.models, opts.budget, log, opts.onCall, new OutputCaps(opts.outputCaps));
    this.flights = new SingleFlightCalls({ cache: opts.cache, call: (m, req, maxTokens) => this.caller.call(m, req, maxTokens), log, claims: opts.claims, keptRetry: opts.keptRetry });
    this.batches = new LlmBatches({ models: this.models, cache: opts.cache, kept: this.flights.kept, log });
  }

  /** The id this client's claims carry (absent without a claiming cache store). */
  get claimOwner(): string | undefined {
    return this.flights.claims?.owner;
  }

  /** Models whose provider said it allows more than the catalog declares, with what it said. */
  get limitsDeclaredTooLow(): ReadonlyMap<string, string> {
    return this.caller.allowsMore;
  }

  /** Responses received but not yet stored (the cache store was unreachable). */
  get keptResponses(): number {
    return this.flights.kept.size;
  }

  /** Stores what is kept, waiting up to `waitMs` for the cache store, and stops renewing claims. */
  close(waitMs?: number): Promise<void> {
    return this.flights.close(waitMs);
  }

  /** Fails with LlmError('config') naming every unknown model and missing key, before a sweep starts. */
  assertUsable(models: string[]): void {
    this.models.assertUsable(models);
  }

  /**
   * The planner's pre-run figure for one call: input tokens counted with the tokenizer, output tokens as
   * expected (default: the request's maxTokens or the model's default), cost at list price without cache discounts.
   */
  estimateCall(req: LlmRequest, expectedOutputTokens?: number): { inputTokens: number; outputTokens: number; costUsd: number } {
    const m = this.models.resolve(req.model);
    const inputTokens = estimateTokens(apiModelOf(m), req.messages);
    const outputTokens = expectedOutputTokens ?? req.maxTokens ?? m.config.defaultMaxTokens;
    return { inputTokens, outputTokens, costUsd: costUsd(m.config.pricing, { inputTokens, cachedInputTokens: 0, outputTokens }) };
  }

  async complete(req: LlmRequest): Promise<LlmResponse> {
    const m = this.models.resolve(req.model);
    const maxTokens = req.maxTokens ?? m.config.defaultMaxTokens;
    if (req.noCache) return this.caller.call(m, req, maxTokens);
    return this.flights.complete(m, req, maxTokens);
  }

  /** Submits the requests (one model) to its provider's batch API; `job` is null when the cache answered them all. */
  submitBatch(requests: LlmRequest[]): Promise<{ job: LlmBatchJob | null; cached: LlmBatchItemResult[] }> {
    return this.batches.submit(requests);
  }

  batchStatus(job: LlmBatchJob): Promise<ProviderBatchStatus> {
    return this.batches.status(job);
  }

  /** Reads an ended batch's results and stores the successes in the response cache (idempotent). */
  ingestBatch(job: LlmBatchJob): Promise<LlmBatchItemResult[]> {
    return this.batches.ingest(job);
  }
}
