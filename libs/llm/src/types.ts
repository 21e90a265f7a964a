import type { SimulationReportDto } from '@sqlsweep/contracts';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /** Marks the end of a shared prefix that the provider may cache (Anthropic `cache_control`). */
  cacheBreakpoint?: boolean;
}

export type LlmPriority = 'interactive' | 'nightly';

export interface LlmRequest {
  model: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens?: number;
  sampleIndex: number;
  templateVersion: string;
  priority?: LlmPriority;
  cacheNamespace?: string;
  noCache?: boolean;
  /** Where the call's tokens and cost are accounted: copied onto every log line of the call. */
  attribution?: { runId?: string; variantId?: string; stage?: string; stageKey?: string; jobId?: string };
}

export interface LlmUsage {
  /** All prompt tokens, including cached ones and cache writes. */
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** Prompt tokens written to the provider's cache (Anthropic charges a premium for them). */
  cacheWriteInputTokens?: number;
}

/**
 * Why a simulated model answered as it did: the prompt features the simulator read and the probability of a correct
 * answer it drew against (llm-sim's `x-sim-features` / `x-sim-probability`). Absent for real models.
 */
export type SimulationReport = SimulationReportDto;

export interface LlmResponse {
  output: string;
  usage: LlmUsage;
  /** What this call paid: 0 when the answer came from the response cache (`cached`). */
  costUsd: number;
  /** What the provider call that produced this answer cost (for a cached answer, the original call's cost; default `costUsd`). */
  answerCostUsd?: number;
  /** For an answer from the cache: the run and stage whose call paid for it, when known (see `attribution`). */
  paidFor?: { runId?: string; stageKey?: string };
  latencyMs: number;
  cached: boolean;
  /**
   * The answer is stored durably in the response cache (a hit, or a paid answer whose store succeeded): asking again
   * is answered from there and costs nothing. Unset while a paid answer is held only in memory (the store was away, or
   * refused it) or where there is no cache.
   */
  stored?: boolean;
  simulated: boolean;
  /** The simulator's account of this answer (features and probability), when the endpoint sent one. */
  simulation?: SimulationReport;
  provider: string;
  model: string;
}
