import type { SimulationReportDto } from './api/results';

/** The token counts the LLM response cache keeps of a call. */
export interface LlmCacheUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}

/**
 * A successful LLM response as the response cache holds it: written by libs/llm (its ResponseCacheStore), kept in
 * Postgres by libs/db (LlmCacheRepository). Here so that the two agree without libs/db importing libs/llm.
 */
export interface LlmCachedResponse {
  output: string;
  usage: LlmCacheUsage;
  /** What the original call cost; a cache hit itself costs nothing. */
  costUsd: number;
  latencyMs: number;
  simulated: boolean;
  provider: string;
  model: string;
  /** The run and stage whose call paid for this response (from the request's attribution), when known. */
  paidFor?: { runId?: string; stageKey?: string };
  /** For a simulated answer: the simulator's prompt features and probability. */
  simulation?: SimulationReportDto;
}

export interface LlmCacheEntry<R extends LlmCachedResponse = LlmCachedResponse> {
  key: string;
  namespace: string;
  provider: string;
  model: string;
  templateVersion: string;
  response: R;
}
