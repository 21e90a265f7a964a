import { ClaimKeeper, claimLifetime } from './claim-keeper';
import { isRefusedByStore, KeptResponses } from './kept-responses';
import type { ResolvedModel } from './model-resolution';
import { fromCache, requestCacheKey, type CacheEntry, type CachedLlmResponse, type ResponseCacheStore } from './response-cache';
import type { LlmRequest, LlmResponse } from './types';

export type ProviderCaller = (m: ResolvedModel, req: LlmRequest, maxTokens: number) => Promise<LlmResponse>;

export interface SingleFlightOptions {
  cache?: ResponseCacheStore;
  /** The paid call, made when neither the cache nor an identical call in flight answers. */
  call: ProviderCaller;
  log: (obj: object) => void;
  claims?: { ttlMs?: number; renewEveryMs?: number; owner?: string };
  keptRetry?: { firstMs?: number; maxMs?: number };
}

/**
 * Calls answered from the response cache when they can be, and otherwise paid for once per cache key: identical calls
 * in this process share the one in flight, and (when the cache store supports claims) identical calls in other
 * processes wait for the one that claimed the key. A paid response is stored, or kept in memory while the store is away.
 */
export class SingleFlightCalls {
  private readonly inFlight = new Map<string, Promise<LlmResponse>>();
  readonly claims?: ClaimKeeper;
  readonly kept: KeptResponses;

  constructor(private readonly opts: SingleFlightOptions) {
    const cache = opts.cache;
    if (cache?.claim && cache.renew && cache.release) {
      const store = { claim: cache.claim.bind(cache), renew: cache.renew.bind(cache), release: cache.release.bind(cache) };
      this.claims = new ClaimKeeper(store, claimLifetime(opts.claims), opts.log, opts.claims?.owner);
    }
    this.kept = new KeptResponses({
      put: (entry) => (cache ? cache.put(entry) : Promise.resolve()),
      // The claim is held until the response is stored, so other processes wait for it instead of paying again.
      onDone: (key) => this.claims?.release(key),
      log: opts.log,
      firstRetryMs: opts.keptRetry?.firstMs,
      maxRetryMs: opts.keptRetry?.maxMs,
    });
  }

  complete(m: ResolvedModel, req: LlmRequest, maxTokens: number): Promise<LlmResponse> {
    const key = requestCacheKey(m, req);
    const running = this.inFlight.get(key);
    if (running) return running.then((r) => fromCache(r, 0));
    const promise = this.cachedCall(m, req, maxTokens, key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  /**
   * Stores what is kept (waiting up to `waitMs` for the cache store) and stops renewing claims; the claims of calls
   * still in flight then lapse after their TTL.
   */
  async close(waitMs?: number): Promise<void> {
    await this.kept.close(waitMs);
    this.claims?.close();
  }

  private async cachedCall(m: ResolvedModel, req: LlmRequest, maxTokens: number, key: string): Promise<LlmResponse> {
    const cache = this.opts.cache;
    if (!cache) return this.opts.call(m, req, maxTokens);
    const started = Date.now();
    const kept = this.kept.get(key);
    if (kept) {
      this.opts.log({ msg: 'llm response served from memory (not yet stored: the cache store was unreachable)', ...req.attribution, model: m.name, key, ...kept.usage });
      return fromCache(kept, Date.now() - started);
    }
    if (this.claims) return this.claimedCall(m, req, maxTokens, key, cache, this.claims, started);
    const hit = await cache.get(key);
    if (hit) {
      this.opts.log({ msg: 'llm cache hit', ...req.attribution, model: m.name, key, ...hit.usage });
      return { ...fromCache(hit, Date.now() - started), stored: true };
    }
    const response = await this.opts.call(m, req, maxTokens);
    const stored = await this.storeOrKeep(cache, key, req, response);
    return stored === 'stored' ? { ...response, stored: true } : response;
  }

  /**
   * Identical calls in other processes: one claims the key and calls; the others poll the cache until its answer
   * lands, or take over when the owner gives up (an error, which is never cached) or its claim lapses (its owner
   * died: a live owner renews its claim while the call is in flight, see ClaimKeeper).
   */
  private async claimedCall(m: ResolvedModel, req: LlmRequest, maxTokens: number, key: string, cache: ResponseCacheStore, claims: ClaimKeeper, started: number): Promise<LlmResponse> {
    for (let waited = false; ; waited = true) {
      const { hit, claimed } = await this.lookUpOrClaim(key, cache, claims);
      if (hit) {
        // Claimed too: the previous owner stored the response between our miss and our claim. Released before the
        // answer, so that no claim outlives the call that took it (rare: it costs a round trip only then).
        if (claimed) await claims.release(key);
        this.opts.log({ msg: waited ? 'llm cache hit after waiting for another process' : 'llm cache hit', ...req.attribution, model: m.name, key, ...hit.usage });
        return { ...fromCache(hit, Date.now() - started), stored: true };
      }
      if (claimed) return this.paidClaimedCall(m, req, maxTokens, key, cache, claims);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** One round trip where the store can (lookupOrClaim), else a get, a claim and, when claimed, a get again. */
  private async lookUpOrClaim(key: string, cache: ResponseCacheStore, claims: ClaimKeeper): Promise<{ hit?: CachedLlmResponse; claimed: boolean }> {
    if (cache.lookupOrClaim) return claims.claimWith(key, (owner, ttlMs) => cache.lookupOrClaim!(key, owner, ttlMs));
    const hit = await cache.get(key);
    if (hit) return { hit, claimed: false };
    if (!(await claims.claim(key))) return { claimed: false };
    // The previous owner may have finished between our cache miss and this claim.
    const late = await cache.get(key);
    return { claimed: true, ...(late ? { hit: late } : {}) };
  }

  /** The paid call under our claim; the claim is released once its response is stored, or at once if it fails. */
  private async paidClaimedCall(m: ResolvedModel, req: LlmRequest, maxTokens: number, key: string, cache: ResponseCacheStore, claims: ClaimKeeper): Promise<LlmResponse> {
    let response: LlmResponse;
    try {
      response = await this.opts.call(m, req, maxTokens);
    } catch (err) {
      await claims.release(key);
      throw err;
    }
    if (!cache.putAndRelease) {
      // A kept response holds its claim until it is stored (KeptResponses releases it then).
      const outcome = await this.storeOrKeep(cache, key, req, response);
      if (outcome !== 'kept') await claims.release(key);
      return outcome === 'stored' ? { ...response, stored: true } : response;
    }
    const entry = cacheEntry(key, req, response);
    try {
      await claims.releaseWith(key, (owner) => cache.putAndRelease!(entry, owner));
      return { ...response, stored: true };
    } catch (err) {
      if (this.refusedOrKept(entry, req, err) === 'refused') await claims.release(key);
      return response;
    }
  }

  /**
   * Stores a paid response. While the store is unreachable the response is kept in this process and stored when the
   * store is back ('kept'): the caller has its answer either way, and nothing is paid twice.
   */
  private async storeOrKeep(cache: ResponseCacheStore, key: string, req: LlmRequest, response: LlmResponse): Promise<'stored' | 'refused' | 'kept'> {
    const entry = cacheEntry(key, req, response);
    try {
      await cache.put(entry);
      return 'stored';
    } catch (err) {
      return this.refusedOrKept(entry, req, err);
    }
  }

  /** After a failed put: 'refused' when the store refused the entry (it is not cached), 'kept' when it is kept to store later. */
  private refusedOrKept(entry: CacheEntry, req: LlmRequest, err: unknown): 'refused' | 'kept' {
    if (isRefusedByStore(err)) {
      this.opts.log({ severity: 'warn', msg: 'llm response refused by the cache store: returned, not cached', ...req.attribution, model: entry.model, key: entry.key, err: (err as Error).message });
      return 'refused';
    }
    this.kept.keep(entry, err as Error);
    return 'kept';
  }
}

function cacheEntry(key: string, req: LlmRequest, response: LlmResponse): CacheEntry {
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
      ...(response.simulation ? { simulation: response.simulation } : {}),
      provider: response.provider,
      model: response.model,
      ...(req.attribution?.runId || req.attribution?.stageKey ? { paidFor: { runId: req.attribution.runId, stageKey: req.attribution.stageKey } } : {}),
    },
  };
}
