import { LlmError } from './errors';
import type { KeptResponses } from './kept-responses';
import { apiModelOf, type ModelResolver, type ResolvedModel } from './model-resolution';
import { costUsd } from './pricing';
import { isBatchCapable, type BatchCapableProvider, type ProviderBatchStatus, type ProviderCall } from './providers/provider';
import { fromCache, requestCacheKey, type ResponseCacheStore } from './response-cache';
import type { LlmRequest, LlmResponse } from './types';

/** A submitted batch: plain JSON, so the caller can store it and ingest later, from any process. */
export interface LlmBatchJob {
  provider: string;
  model: string;
  batchId: string;
  submittedAt: string;
  /** customId is the response-cache key; identical requests are submitted once. */
  items: Array<{ customId: string; request: LlmRequest }>;
}

export interface LlmBatchItemResult {
  customId: string;
  request: LlmRequest;
  response?: LlmResponse;
  error?: LlmError;
}

export interface LlmBatchesOptions {
  models: ModelResolver;
  cache?: ResponseCacheStore;
  /** Responses paid for but not yet stored: answers, like the cache's. */
  kept: KeptResponses;
  log: (obj: object) => void;
}

/** Requests sent through a provider's batch API (at its batch price), their results stored in the response cache. */
export class LlmBatches {
  constructor(private readonly opts: LlmBatchesOptions) {}

  /**
   * Submits the requests (all for one model) to the provider's batch API. Requests already in the response
   * cache are answered at once, not submitted: `job` is null when nothing was left to submit.
   */
  async submit(requests: LlmRequest[]): Promise<{ job: LlmBatchJob | null; cached: LlmBatchItemResult[] }> {
    if (requests.length === 0) return { job: null, cached: [] };
    const models = new Set(requests.map((r) => r.model));
    if (models.size !== 1) throw new LlmError('config', `a batch holds one model; got ${[...models].join(', ')}`);
    const { m, provider } = this.batchProvider(requests[0]!.model);
    const cache = this.opts.cache;
    const cached: LlmBatchItemResult[] = [];
    const pending = new Map<string, LlmRequest>();
    for (const req of requests) {
      const customId = requestCacheKey(m, req);
      const hit = !req.noCache && cache ? (this.opts.kept.get(customId) ?? (await cache.get(customId))) : undefined;
      if (hit) cached.push({ customId, request: req, response: fromCache(hit, 0) });
      else pending.set(customId, req);
    }
    if (pending.size === 0) return { job: null, cached };
    const calls = [...pending].map(([customId, req]) => ({ customId, call: providerCall(m, req) }));
    const batchId = await provider.submitBatch(calls);
    this.opts.log({ msg: 'llm batch submitted', model: m.name, provider: m.providerName, batchId, requests: calls.length, fromCache: cached.length });
    const items = [...pending].map(([customId, request]) => ({ customId, request }));
    return { job: { provider: m.providerName, model: m.name, batchId, submittedAt: new Date().toISOString(), items }, cached };
  }

  async status(job: LlmBatchJob): Promise<ProviderBatchStatus> {
    return this.batchProvider(job.model).provider.batchStatus(job.batchId);
  }

  /**
   * Reads an ended batch's results, priced at the batch rate, and stores the successes in the response cache.
   * Idempotent: ingesting again returns the same results and writes nothing new.
   */
  async ingest(job: LlmBatchJob): Promise<LlmBatchItemResult[]> {
    const { m, provider } = this.batchProvider(job.model);
    const cache = this.opts.cache;
    const status = await provider.batchStatus(job.batchId);
    if (status.state === 'in_progress') throw new LlmError('bad_request', `batch ${job.batchId} has not ended yet (${status.succeeded + status.failed}/${status.total} done)`);
    const byId = new Map((await provider.batchResults(job.batchId)).map((r) => [r.customId, r]));
    const latencyMs = Date.now() - Date.parse(job.submittedAt);
    const results: LlmBatchItemResult[] = [];
    for (const { customId, request } of job.items) {
      const r = byId.get(customId);
      if (!r?.result) {
        const httpStatus = r?.error?.status ?? 0;
        const message = `${m.providerName} batch ${job.batchId}: ${r?.error?.message ?? `no result for ${customId} in the batch output (batch ${status.state})`}`;
        const code = httpStatus >= 400 && httpStatus < 500 && httpStatus !== 429 ? 'bad_request' : 'server';
        results.push({ customId, request, error: new LlmError(code, message, httpStatus ? { status: httpStatus } : {}) });
        continue;
      }
      const usage = r.result.usage;
      const response: LlmResponse = {
        output: r.result.output,
        usage,
        costUsd: Math.round(costUsd(m.config.pricing, usage) * m.config.pricing.batchFactor * 1e9) / 1e9,
        latencyMs,
        cached: false,
        simulated: m.providerConfig.simulated || r.result.simulated,
        ...(r.result.simulation ? { simulation: r.result.simulation } : {}),
        provider: m.providerName,
        model: m.name,
      };
      if (r.result.simulationProblem) this.opts.log({ severity: 'warn', msg: 'llm simulator report ignored', model: m.name, batchId: job.batchId, customId, problem: r.result.simulationProblem });
      if (cache && !request.noCache) {
        await cache.put({
          key: customId,
          namespace: request.cacheNamespace ?? 'default',
          provider: m.providerName,
          model: m.name,
          templateVersion: request.templateVersion,
          response: {
            output: response.output, usage, costUsd: response.costUsd, latencyMs, simulated: response.simulated, provider: m.providerName, model: m.name,
            ...(response.simulation ? { simulation: response.simulation } : {}),
          },
        });
      }
      results.push({ customId, request, response });
    }
    this.opts.log({ msg: 'llm batch ingested', model: m.name, batchId: job.batchId, ok: results.filter((r) => r.response).length, failed: results.filter((r) => r.error).length });
    return results;
  }

  private batchProvider(model: string): { m: ResolvedModel; provider: BatchCapableProvider } {
    const m = this.opts.models.resolve(model);
    const provider = this.opts.models.provider(m);
    if (!isBatchCapable(provider)) throw new LlmError('config', `provider "${m.providerName}" has no batch API`);
    return { m, provider };
  }
}

function providerCall(m: ResolvedModel, req: LlmRequest): ProviderCall {
  return {
    apiModel: apiModelOf(m),
    messages: req.messages,
    temperature: req.temperature,
    maxTokens: req.maxTokens ?? m.config.defaultMaxTokens,
    sampleIndex: req.sampleIndex,
    timeoutMs: m.providerConfig.timeoutMs,
  };
}
