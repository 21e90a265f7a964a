import { createHash } from 'node:crypto';
import type { LlmCachedResponse, LlmCacheEntry } from '@sqlsweep/contracts';
import { apiModelOf, type ResolvedModel } from './model-resolution';
import type { ChatMessage, LlmRequest, LlmResponse, LlmUsage } from './types';

/** A response as the cache holds it (the shape libs/db stores, from libs/contracts), with this lib's usage type. */
export interface CachedLlmResponse extends LlmCachedResponse {
  usage: LlmUsage;
}

export type CacheEntry = LlmCacheEntry<CachedLlmResponse>;

/** Durable store of successful responses (Postgres in production: libs/db's LlmCacheRepository). */
export interface ResponseCacheStore {
  get(key: string): Promise<CachedLlmResponse | undefined>;
  /** Idempotent: a second put of the same key keeps the first response. */
  put(entry: CacheEntry): Promise<void>;
  /**
   * Optional, for collapsing identical calls across processes: true when `owner` (one id per live client) now holds
   * the call for `key` for `ttlMs` (no live claim by anyone else). The owner renews its claims while the call is in
   * flight and releases them when the call ends, whatever the outcome; a dead owner's claim lapses after `ttlMs`.
   */
  claim?(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends `owner`'s claims on `keys` (re-creating lost ones); returns the keys it holds now. */
  renew?(keys: string[], owner: string, ttlMs: number): Promise<string[]>;
  release?(key: string, owner: string): Promise<void>;
  /**
   * Optional, with the claims (saves round trips): get(key) and, when nothing is stored, claim(key, owner, ttlMs) in
   * one round trip. It must find a response stored before the claim took hold (as a get after the claim would):
   * `hit` then comes with `claimed` true, and the caller releases the claim.
   */
  lookupOrClaim?(key: string, owner: string, ttlMs: number): Promise<{ hit?: CachedLlmResponse; claimed: boolean }>;
  /** Optional, with the claims: put(entry) and release(entry.key, owner) in one round trip; a failed put keeps the claim. */
  putAndRelease?(entry: CacheEntry, owner: string): Promise<void>;
}

export interface CacheKeyParts {
  namespace: string;
  provider: string;
  apiModel: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  templateVersion: string;
  sampleIndex: number;
}

/** Line endings and trailing blanks carry no meaning to a model; they must not split the cache. */
function normalizeContent(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[ \t]+$/gm, '').trim();
}

export function responseCacheKey(p: CacheKeyParts): string {
  const normalized = {
    ns: p.namespace,
    provider: p.provider,
    model: p.apiModel,
    messages: p.messages.map((m) => [m.role, normalizeContent(m.content)]),
    temperature: p.temperature,
    maxTokens: p.maxTokens,
    template: p.templateVersion,
    sample: p.sampleIndex,
  };
  return createHash('sha256').update(JSON.stringify(normalized)).digest('hex');
}

/** The cache key of a request to a resolved model. */
export function requestCacheKey(m: ResolvedModel, req: LlmRequest): string {
  return responseCacheKey({
    namespace: req.cacheNamespace ?? 'default',
    provider: m.providerName,
    apiModel: apiModelOf(m),
    messages: req.messages,
    temperature: req.temperature,
    maxTokens: req.maxTokens ?? m.config.defaultMaxTokens,
    templateVersion: req.templateVersion,
    sampleIndex: req.sampleIndex,
  });
}

/** An answer taken from the cache (or from an identical call in flight): free now, its producing call's cost kept. */
export function fromCache(answer: Omit<LlmResponse, 'cached'> & { answerCostUsd?: number }, latencyMs: number): LlmResponse {
  return { ...answer, cached: true, costUsd: 0, answerCostUsd: answer.answerCostUsd ?? answer.costUsd, latencyMs };
}
