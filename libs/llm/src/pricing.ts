import type { ModelConfig } from './model-catalog';
import type { LlmUsage } from './types';

/** Cost in US dollars; cached input tokens are a subset of input tokens, priced at the cached rate. */
export function costUsd(pricing: Pick<ModelConfig['pricing'], 'inputPerMTok' | 'cachedInputPerMTok' | 'outputPerMTok'>, usage: LlmUsage): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens);
  const dollars =
    (uncached * pricing.inputPerMTok + usage.cachedInputTokens * pricing.cachedInputPerMTok + usage.outputTokens * pricing.outputPerMTok) /
    1_000_000;
  return Math.round(dollars * 1e9) / 1e9;
}
