import { ClaimKeeper, claimLifetime } from './claim-keeper';
import { LlmError } from './errors';
import { isRefusedByStore, KeptResponses } from './kept-responses';
import type { ModelCatalog, ModelConfig, ProviderConfig } from './model-catalog';
import { costUsd } from './pricing';
import { isBatchCapable, type BatchCapableProvider, type LlmProvider, type ProviderBatchStatus, type ProviderCall, type ProviderResult } from './providers/provider';
import { admissionCharge, budgetLimits, settledCharge } from './rate-accounting';
import type { BudgetLease, RateBudget } from './rate-budget';
import { rateLimitObservation } from './providers/http-headers';
import type { RateLimitObservation } from './providers/provider';
import { responseCacheKey, type CacheEntry, type ResponseCacheStore } from './response-cache';
import { estimateTokens } from './tokens';
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
  /** Backoff of cache puts retried while the store is unreachable (defaults 250 ms doubling to 2 s). */
  keptRetry?: { firstMs?: number; maxMs?: number };
}

interface ResolvedModel {
  name: string;
  config: ModelConfig;
  providerName: string;
  providerConfig: ProviderConfig;
}

/** Providers, shared rate budget, response cache and cost accounting behind one `complete()`. */
export class LlmClient {
  private readonly providers = new Map<string, LlmProvider>();
  private readonly inFlight = new Map<string, Promise<LlmResponse>>();
  /** Running mean of output tokens per model: what the budget reserves before a call. */
  private readonly meanOutput = new Map<string, number>();
  /** Models whose provider announced higher limits than the catalog declares (reported once per process). */
  private readonly allowsMore = new Map<string, string>();
  private readonly claims?: ClaimKeeper;
  private readonly kept: KeptResponses;

  constructor(private readonly opts: LlmClientOptions) {
    const cache = opts.cache;
    if (cache?.claim && cache.renew && cache.release) {
      const store = { claim: cache.claim.bind(cache), renew: cache.renew.bind(cache), release: cache.release.bind(cache) };
      this.claims = new ClaimKeeper(store, claimLifetime(opts.claims), (o) => this.log(o), opts.claims?.owner);
    }
    this.kept = new KeptResponses({
      put: (entry) => (cache ? cache.put(entry) : Promise.resolve()),
      // The claim is held until the response is stored, so other processes wait for it instead of paying again.
      onDone: (key) => this.claims?.release(key),
      log: (o) => this.log(o),
      firstRetryMs: opts.keptRetry?.firstMs,
      maxRetryMs: opts.keptRetry?.maxMs,
    });
  }

  /** The id this client's claims carry (absent without a claiming cache store). */
  get claimOwner(): string | undefined {
    return this.claims?.owner;
  }

  /** Models whose provider said it allows more than the catalog declares, with what it said. */
  get limitsDeclaredTooLow(): ReadonlyMap<string, string> {
    return this.allowsMore;
  }

  /** Responses received but not yet stored (the cache store was unreachable). */
  get keptResponses(): number {
    return this.kept.size;
  }

  /**
   * Stores what is kept (waiting up to `waitMs` for the cache store) and stops renewing claims; the claims of calls
   * still in flight then lapse after their TTL.
   */
  async close(waitMs?: number): Promise<void> {
    await this.kept.close(waitMs);
    this.claims?.close();
  }

  private resolve(model: string): ResolvedModel {
    const config = this.opts.catalog.models[model];
    if (!config) {
      throw new LlmError('config', `unknown model "${model}" (the model catalog has: ${Object.keys(this.opts.catalog.models).join(', ')})`);
    }
    const providerConfig = this.opts.catalog.providers[config.provider]!;
    return { name: model, config, providerName: config.provider, providerConfig };
  }

  private apiKey(providerName: string, p: ProviderConfig): string {
    if (!p.apiKeyEnv) {
      if (p.kind === 'openai-compatible') return 'none';
      throw new LlmError('config', `provider "${providerName}": apiKeyEnv is not set in the model catalog`);
    }
    const key = this.opts.env[p.apiKeyEnv];
    if (!key) throw new LlmError('config', `provider "${providerName}": environment variable ${p.apiKeyEnv} is not set`);
    return key;
  }

  private baseUrl(providerName: string, p: ProviderConfig): string | undefined {
    if (p.baseUrlEnv) {
      const url = this.opts.env[p.baseUrlEnv] ?? p.baseUrl;
      if (!url) throw new LlmError('config', `provider "${providerName}": environment variable ${p.baseUrlEnv} is not set`);
      return url;
    }
    return p.baseUrl;
  }

  private provider(m: ResolvedModel): LlmProvider {
    let provider = this.providers.get(m.providerName);
    if (provider) return provider;
    const p = m.providerConfig;
    const apiKey = this.apiKey(m.providerName, p);
    const baseUrl = this.baseUrl(m.providerName, p);
    const common = { name: m.providerName, apiKey, ...(baseUrl ? { baseUrl } : {}) };
    // The SDKs load on first use: planning and the CLI's other commands never call a provider, and they are ~20 MB.
    if (p.kind === 'anthropic') {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { AnthropicProvider } = require('./providers/anthropic.provider') as typeof import('./providers/anthropic.provider');
      provider = new AnthropicProvider(common);
    } else {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { OpenAiCompatibleProvider } = require('./providers/openai-compatible.provider') as typeof import('./providers/openai-compatible.provider');
      // The OpenAI SDK appends /chat/completions to the base URL; servers expect it under /v1.
      const withV1 = baseUrl && !/\/v1\/?$/.test(baseUrl) ? `${baseUrl.replace(/\/$/, '')}/v1` : baseUrl;
      provider = new OpenAiCompatibleProvider({
        ...common,
        ...(withV1 ? { baseUrl: withV1 } : {}),
        maxTokensField: p.kind === 'openai' ? 'max_completion_tokens' : 'max_tokens',
      });
    }
    this.providers.set(m.providerName, provider);
    return provider;
  }

  /** Fails with LlmError('config') naming every unknown model and missing key, before a sweep starts. */
  assertUsable(models: string[]): void {
    const problems: string[] = [];
    for (const model of new Set(models)) {
      try {
        const m = this.resolve(model);
        this.apiKey(m.providerName, m.providerConfig);
        this.baseUrl(m.providerName, m.providerConfig);
      } catch (err) {
        problems.push(`${model}: ${(err as Error).message}`);
      }
    }
    if (problems.length > 0) throw new LlmError('config', `models not usable:\n  ${problems.join('\n  ')}`);
  }

  /**
   * The planner's pre-run figure for one call: input tokens counted with the tokenizer, output tokens as
   * expected (default: the request's maxTokens or the model's default), cost at list price without cache discounts.
   */
  estimateCall(req: LlmRequest, expectedOutputTokens?: number): { inputTokens: number; outputTokens: number; costUsd: number } {
    const m = this.resolve(req.model);
    const inputTokens = estimateTokens(m.config.apiModel ?? m.name, req.messages);
    const outputTokens = expectedOutputTokens ?? req.maxTokens ?? m.config.defaultMaxTokens;
    return { inputTokens, outputTokens, costUsd: costUsd(m.config.pricing, { inputTokens, cachedInputTokens: 0, outputTokens }) };
  }

  async complete(req: LlmRequest): Promise<LlmResponse> {
    const m = this.resolve(req.model);
    const maxTokens = req.maxTokens ?? m.config.defaultMaxTokens;
    const cache = req.noCache ? undefined : this.opts.cache;
    const key = responseCacheKey({
      namespace: req.cacheNamespace ?? 'default',
      provider: m.providerName,
      apiModel: m.config.apiModel ?? m.name,
      messages: req.messages,
      temperature: req.temperature,
      maxTokens,
      templateVersion: req.templateVersion,
      sampleIndex: req.sampleIndex,
    });
    if (req.noCache) return this.call(m, req, maxTokens);

    const running = this.inFlight.get(key);
    if (running) return running.then((r) => fromCache(r, 0));
    const promise = this.cachedCall(m, req, maxTokens, key, cache).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async cachedCall(m: ResolvedModel, req: LlmRequest, maxTokens: number, key: string, cache: ResponseCacheStore | undefined): Promise<LlmResponse> {
    if (cache) {
      const started = Date.now();
      const kept = this.kept.get(key);
      if (kept) {
        this.log({ msg: 'llm response served from memory (not yet stored: the cache store was unreachable)', ...req.attribution, model: m.name, key, ...kept.usage });
        return fromCache(kept, Date.now() - started);
      }
      const hit = await cache.get(key);
      if (hit) {
        this.log({ msg: 'llm cache hit', ...req.attribution, model: m.name, key, ...hit.usage });
        return fromCache(hit, Date.now() - started);
      }
    }
    if (cache && this.claims) return this.claimedCall(m, req, maxTokens, key, cache, this.claims);
    const response = await this.call(m, req, maxTokens);
    if (cache) await this.storeOrKeep(cache, key, req, response);
    return response;
  }

  private cacheEntry(key: string, req: LlmRequest, response: LlmResponse): CacheEntry {
    return {
      key,
      namespace: req.cacheNamespace ?? 'default',
      provider: response.provider,
      model: response.model,
      templateVersion: req.templateVersion,
      response: {
        output: response.output,
        usage: response.usage,
        costUsd: response.costUsd,
        latencyMs: response.latencyMs,
        simulated: response.simulated,
        provider: response.provider,
        model: response.model,
        ...(req.attribution?.runId || req.attribution?.stageKey ? { paidFor: { runId: req.attribution.runId, stageKey: req.attribution.stageKey } } : {}),
      },
    };
  }

  /**
   * Stores a paid response; true when it is stored. While the store is unreachable the response is kept in this
   * process and stored when the store is back (false): the caller has its answer either way, and nothing is paid twice.
   */
  private async storeOrKeep(cache: ResponseCacheStore, key: string, req: LlmRequest, response: LlmResponse): Promise<boolean> {
    const entry = this.cacheEntry(key, req, response);
    try {
      await cache.put(entry);
      return true;
    } catch (err) {
      if (isRefusedByStore(err)) {
        this.log({ severity: 'warn', msg: 'llm response refused by the cache store: returned, not cached', ...req.attribution, model: response.model, key, err: (err as Error).message });
        return true;
      }
      this.kept.keep(entry, err as Error);
      return false;
    }
  }

  /**
   * Identical calls in other processes: one claims the key and calls; the others poll the cache until its answer
   * lands, or take over when the owner gives up (an error, which is never cached) or its claim lapses (its owner
   * died: a live owner renews its claim while the call is in flight, see ClaimKeeper).
   */
  private async claimedCall(m: ResolvedModel, req: LlmRequest, maxTokens: number, key: string, cache: ResponseCacheStore, claims: ClaimKeeper): Promise<LlmResponse> {
    const started = Date.now();
    for (;;) {
      if (await claims.claim(key)) {
        let stored = true;
        try {
          // The previous owner may have finished between our cache miss and this claim.
          const late = await cache.get(key);
          if (late) return fromCache(late, Date.now() - started);
          const response = await this.call(m, req, maxTokens);
          stored = await this.storeOrKeep(cache, key, req, response);
          return response;
        } finally {
          // A kept response holds its claim until it is stored (KeptResponses releases it then).
          if (stored) await claims.release(key);
        }
      }
      await new Promise((r) => setTimeout(r, 100));
      const hit = await cache.get(key);
      if (hit) {
        this.log({ msg: 'llm cache hit after waiting for another process', ...req.attribution, model: m.name, key, ...hit.usage });
        return fromCache(hit, Date.now() - started);
      }
    }
  }

  private async call(m: ResolvedModel, req: LlmRequest, maxTokens: number): Promise<LlmResponse> {
    const provider = this.provider(m);
    const budget = this.opts.budget;
    const inputEstimate = estimateTokens(m.config.apiModel ?? m.name, req.messages);
    if (inputEstimate + maxTokens > m.config.contextWindow) {
      throw new LlmError('bad_request', `${m.name}: ${inputEstimate} input + ${maxTokens} output tokens exceed the context window of ${m.config.contextWindow}`);
    }
    const outputEstimate = Math.min(maxTokens, Math.ceil(this.meanOutput.get(m.name) ?? Math.min(maxTokens, 256)));
    const charge = admissionCharge(m.config.limits, { promptTokens: inputEstimate, maxTokens, expectedOutputTokens: outputEstimate });
    let lease: BudgetLease | undefined;
    if (budget) {
      lease = await budget.acquire({
        model: m.name,
        limits: budgetLimits(m.config.limits),
        inputTokens: charge.inputTokens,
        outputTokens: charge.outputTokens,
        priority: req.priority ?? 'nightly',
        leaseMs: m.providerConfig.timeoutMs + 5_000,
      });
    }
    const started = Date.now();
    let result: ProviderResult;
    try {
      result = await provider.complete({
        apiModel: m.config.apiModel ?? m.name,
        messages: req.messages,
        temperature: req.temperature,
        maxTokens,
        sampleIndex: req.sampleIndex,
        timeoutMs: m.providerConfig.timeoutMs,
      });
    } catch (err) {
      const error = err instanceof LlmError ? err : new LlmError('network', `${m.providerName}: ${(err as Error).message}`, { cause: err });
      if (budget && lease) await this.afterFailure(budget, lease, m, error);
      // A 429 carries the provider's limits too: learn them at once.
      if (budget) await this.learnLimits(budget, m, rateLimitObservation((error.cause as { headers?: Headers } | undefined)?.headers));
      this.log({ msg: 'llm call failed', ...req.attribution, model: m.name, provider: m.providerName, code: error.code, status: error.status, retryAfterMs: error.retryAfterMs, latencyMs: Date.now() - started });
      throw error;
    }
    const latencyMs = Date.now() - started;
    if (budget && lease) {
      await budget.settle(lease, settledCharge(m.config.limits, maxTokens, result.usage));
      await this.learnLimits(budget, m, result.rateLimit);
    }
    const previous = this.meanOutput.get(m.name);
    this.meanOutput.set(m.name, previous === undefined ? result.usage.outputTokens : previous * 0.9 + result.usage.outputTokens * 0.1);
    const response: LlmResponse = {
      output: result.output,
      usage: result.usage,
      costUsd: costUsd(m.config.pricing, result.usage),
      latencyMs,
      cached: false,
      simulated: m.providerConfig.simulated || result.simulated,
      provider: m.providerName,
      model: m.name,
    };
    this.log({ msg: 'llm call', ...req.attribution, model: m.name, provider: m.providerName, ...response.usage, costUsd: response.costUsd, latencyMs, simulated: response.simulated, waitedMs: lease?.waitedMs ?? 0 });
    return response;
  }

  /** Feeds the provider's rate-limit headers to the shared budget, and reports a declared limit below the server's. */
  private async learnLimits(budget: RateBudget, m: ResolvedModel, obs: RateLimitObservation): Promise<void> {
    const declared = budgetLimits(m.config.limits);
    await budget.observe(m.name, declared, obs);
    if (this.allowsMore.has(m.name)) return;
    const tokenField = declared.accounting === 'single-tpm' ? 'tpm' : 'inputTpm';
    const more = [
      obs.limitRequests !== undefined && obs.limitRequests > declared.rpm * 1.05 ? `rpm ${obs.limitRequests} (declared ${declared.rpm})` : '',
      obs.limitInputTokens !== undefined && obs.limitInputTokens > declared.inputTpm * 1.05 ? `${tokenField} ${obs.limitInputTokens} (declared ${declared.inputTpm})` : '',
      obs.limitOutputTokens !== undefined && obs.limitOutputTokens > declared.outputTpm * 1.05 ? `outputTpm ${obs.limitOutputTokens} (declared ${declared.outputTpm})` : '',
    ].filter(Boolean);
    if (more.length === 0) return;
    const said = more.join(', ');
    this.allowsMore.set(m.name, said);
    this.log({ severity: 'warn', msg: `${m.name}: the provider allows more than the model catalog declares: ${said}; raise models.${m.name}.limits to use it`, model: m.name, provider: m.providerName });
  }

  private async afterFailure(budget: RateBudget, lease: BudgetLease, m: ResolvedModel, error: LlmError): Promise<void> {
    if (error.code === 'rate_limited') {
      // The provider did not count a refused call; give it back and respect its Retry-After for everyone.
      await budget.settle(lease, { inputTokens: 0, outputTokens: 0, refundRequest: true });
      await budget.blockFor(m.name, error.retryAfterMs ?? 1_000);
    } else if (error.code === 'quota_exhausted') {
      await budget.settle(lease, { inputTokens: 0, outputTokens: 0, refundRequest: true });
      await budget.pause(m.name, `quota exhausted at provider ${m.providerName}: ${error.message}`);
    } else {
      // The call may have been counted by the provider: keep the estimate spent, free the concurrency slot.
      await budget.settle(lease, { inputTokens: lease.inputTokens, outputTokens: lease.outputTokens });
    }
  }

  private batchProvider(model: string): { m: ResolvedModel; provider: BatchCapableProvider } {
    const m = this.resolve(model);
    const provider = this.provider(m);
    if (!isBatchCapable(provider)) throw new LlmError('config', `provider "${m.providerName}" has no batch API`);
    return { m, provider };
  }

  private keyOf(m: ResolvedModel, req: LlmRequest): string {
    return responseCacheKey({
      namespace: req.cacheNamespace ?? 'default',
      provider: m.providerName,
      apiModel: m.config.apiModel ?? m.name,
      messages: req.messages,
      temperature: req.temperature,
      maxTokens: req.maxTokens ?? m.config.defaultMaxTokens,
      templateVersion: req.templateVersion,
      sampleIndex: req.sampleIndex,
    });
  }

  /**
   * Submits the requests (all for one model) to the provider's batch API. Requests already in the response
   * cache are answered at once, not submitted: `job` is null when nothing was left to submit.
   */
  async submitBatch(requests: LlmRequest[]): Promise<{ job: LlmBatchJob | null; cached: LlmBatchItemResult[] }> {
    if (requests.length === 0) return { job: null, cached: [] };
    const models = new Set(requests.map((r) => r.model));
    if (models.size !== 1) throw new LlmError('config', `a batch holds one model; got ${[...models].join(', ')}`);
    const { m, provider } = this.batchProvider(requests[0]!.model);
    const cached: LlmBatchItemResult[] = [];
    const pending = new Map<string, LlmRequest>();
    for (const req of requests) {
      const customId = this.keyOf(m, req);
      const hit = !req.noCache && this.opts.cache ? (this.kept.get(customId) ?? (await this.opts.cache.get(customId))) : undefined;
      if (hit) cached.push({ customId, request: req, response: fromCache(hit, 0) });
      else pending.set(customId, req);
    }
    if (pending.size === 0) return { job: null, cached };
    const calls = [...pending].map(([customId, req]) => ({ customId, call: this.providerCall(m, req) }));
    const batchId = await provider.submitBatch(calls);
    this.log({ msg: 'llm batch submitted', model: m.name, provider: m.providerName, batchId, requests: calls.length, fromCache: cached.length });
    const items = [...pending].map(([customId, request]) => ({ customId, request }));
    return { job: { provider: m.providerName, model: m.name, batchId, submittedAt: new Date().toISOString(), items }, cached };
  }

  async batchStatus(job: LlmBatchJob): Promise<ProviderBatchStatus> {
    return this.batchProvider(job.model).provider.batchStatus(job.batchId);
  }

  /**
   * Reads an ended batch's results, priced at the batch rate, and stores the successes in the response cache.
   * Idempotent: ingesting again returns the same results and writes nothing new.
   */
  async ingestBatch(job: LlmBatchJob): Promise<LlmBatchItemResult[]> {
    const { m, provider } = this.batchProvider(job.model);
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
        provider: m.providerName,
        model: m.name,
      };
      if (this.opts.cache && !request.noCache) {
        await this.opts.cache.put({
          key: customId,
          namespace: request.cacheNamespace ?? 'default',
          provider: m.providerName,
          model: m.name,
          templateVersion: request.templateVersion,
          response: { output: response.output, usage, costUsd: response.costUsd, latencyMs, simulated: response.simulated, provider: m.providerName, model: m.name },
        });
      }
      results.push({ customId, request, response });
    }
    this.log({ msg: 'llm batch ingested', model: m.name, batchId: job.batchId, ok: results.filter((r) => r.response).length, failed: results.filter((r) => r.error).length });
    return results;
  }

  private providerCall(m: ResolvedModel, req: LlmRequest): ProviderCall {
    return {
      apiModel: m.config.apiModel ?? m.name,
      messages: req.messages,
      temperature: req.temperature,
      maxTokens: req.maxTokens ?? m.config.defaultMaxTokens,
      sampleIndex: req.sampleIndex,
      timeoutMs: m.providerConfig.timeoutMs,
    };
  }

  private log(obj: object): void {
    this.opts.logger?.(obj);
  }
}

/** An answer taken from the cache (or from an identical call in flight): free now, its producing call's cost kept. */
function fromCache(answer: Omit<LlmResponse, 'cached'> & { answerCostUsd?: number }, latencyMs: number): LlmResponse {
  return { ...answer, cached: true, costUsd: 0, answerCostUsd: answer.answerCostUsd ?? answer.costUsd, latencyMs };
}
