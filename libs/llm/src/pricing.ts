import type { ModelConfig } from './model-catalog';
import type { LlmUsage } from './types';

type Pricing = Pick<ModelConfig['pricing'], 'inputPerMTok' | 'cachedInputPerMTok' | 'outputPerMTok'> & { cacheWritePerMTok?: number | undefined };

/**
 * Cost in US dollars. Cached input tokens and cache writes are subsets of input tokens, priced at their own
 * rates; the rest of the input at the input price.
 */
export function costUsd(pricing: Pricing, usage: LlmUsage): number {
  const writes = usage.cacheWriteInputTokens ?? 0;
  const plain = Math.max(0, usage.inputTokens - usage.cachedInputTokens - writes);
  const dollars =
    (plain * pricing.inputPerMTok +
      usage.cachedInputTokens * pricing.cachedInputPerMTok +
      writes * (pricing.cacheWritePerMTok ?? pricing.inputPerMTok) +
      usage.outputTokens * pricing.outputPerMTok) /
    1_000_000;
  return Math.round(dollars * 1e9) / 1e9;
}
