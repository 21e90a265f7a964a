import type { ChatMessage, LlmUsage } from '../types';

export interface ProviderCall {
  /** Model name as the provider knows it. */
  apiModel: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  sampleIndex: number;
  timeoutMs: number;
}

/** Remaining capacity as the provider reports it in its rate-limit headers. */
export interface RateLimitObservation {
  remainingRequests?: number;
  remainingInputTokens?: number;
  remainingOutputTokens?: number;
}

export interface ProviderResult {
  output: string;
  usage: LlmUsage;
  /** The endpoint said it is a simulator (`x-sqlsweep-simulated: true`). */
  simulated: boolean;
  rateLimit: RateLimitObservation;
}

export interface LlmProvider {
  readonly name: string;
  complete(call: ProviderCall): Promise<ProviderResult>;
}
