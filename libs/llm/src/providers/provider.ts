import type { ChatMessage, LlmUsage, SimulationReport } from '../types';

export interface ProviderCall {
  /** Model name as the provider knows it. */
  apiModel: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  sampleIndex: number;
  timeoutMs: number;
}

/** Limits and remaining capacity as the provider reports them in its rate-limit headers (limits per minute). */
export interface RateLimitObservation {
  remainingRequests?: number;
  /** The single token limit's remaining (OpenAI), or the input tokens' (Anthropic). */
  remainingInputTokens?: number;
  remainingOutputTokens?: number;
  limitRequests?: number;
  limitInputTokens?: number;
  limitOutputTokens?: number;
}

export interface ProviderResult {
  output: string;
  usage: LlmUsage;
  /** The endpoint said it is a simulator (`x-sqlsweep-simulated: true`). */
  simulated: boolean;
  /** The simulator's features and probability for this answer (llm-sim's `x-sim-*` headers), when sent. */
  simulation?: SimulationReport;
  /** Why a report the endpoint sent was dropped (malformed); the caller logs it as a warning. */
  simulationProblem?: string;
  rateLimit: RateLimitObservation;
}

export interface LlmProvider {
  readonly name: string;
  complete(call: ProviderCall): Promise<ProviderResult>;
}

export interface BatchCall {
  customId: string;
  call: ProviderCall;
}

export interface ProviderBatchStatus {
  state: 'in_progress' | 'ended' | 'failed' | 'expired' | 'cancelled';
  total: number;
  succeeded: number;
  failed: number;
}

export interface ProviderBatchResult {
  customId: string;
  result?: ProviderResult;
  error?: { status: number; message: string };
}

/** Providers that offer an asynchronous batch API (OpenAI Batch, Anthropic Message Batches). */
export interface BatchCapableProvider extends LlmProvider {
  submitBatch(calls: BatchCall[]): Promise<string>;
  batchStatus(batchId: string): Promise<ProviderBatchStatus>;
  batchResults(batchId: string): Promise<ProviderBatchResult[]>;
}

export function isBatchCapable(p: LlmProvider): p is BatchCapableProvider {
  return typeof (p as Partial<BatchCapableProvider>).submitBatch === 'function';
}
