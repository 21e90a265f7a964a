import type { ModelLimits } from './model-catalog';
import type { LlmUsage } from './types';

/**
 * How a provider counts a call against its limits. `single-tpm`: prompt + max_tokens charged at admission against one
 * token limit, in a rolling window (OpenAI). `input-output`: input charged at admission against ITPM, output against
 * OTPM as it is produced, in continuously refilled buckets (Anthropic).
 */
export type RateAccounting = 'single-tpm' | 'input-output';

/** What the shared budget holds per model: its request bucket, its (input or single) token bucket, its output bucket. */
export interface BudgetLimits {
  rpm: number;
  /** The single TPM, or the ITPM. */
  inputTpm: number;
  /** The OTPM; unlimited under `single-tpm`. */
  outputTpm: number;
  concurrency: number;
  /** Absent: input-output. */
  accounting?: RateAccounting;
}

/** An output limit no provider has: the bucket never binds. */
const UNLIMITED = 1e15;

export function accountingOf(limits: ModelLimits): RateAccounting {
  return limits.tpm !== undefined ? 'single-tpm' : 'input-output';
}

export function budgetLimits(limits: ModelLimits): BudgetLimits {
  const accounting = accountingOf(limits);
  return accounting === 'single-tpm'
    ? { rpm: limits.rpm, inputTpm: limits.tpm!, outputTpm: UNLIMITED, concurrency: limits.concurrency, accounting }
    : { rpm: limits.rpm, inputTpm: limits.inputTpm!, outputTpm: limits.outputTpm!, concurrency: limits.concurrency, accounting };
}

export interface Charge {
  inputTokens: number;
  outputTokens: number;
}

/** What the provider charges when it admits the call. */
export function admissionCharge(limits: ModelLimits, call: { promptTokens: number; maxTokens: number; expectedOutputTokens: number }): Charge {
  return accountingOf(limits) === 'single-tpm'
    ? { inputTokens: call.promptTokens + call.maxTokens, outputTokens: 0 }
    : { inputTokens: call.promptTokens, outputTokens: Math.min(call.maxTokens, call.expectedOutputTokens) };
}

/**
 * What the provider counted once the answer is in: the reservation is corrected to it. Under `single-tpm` the
 * max_tokens reserved stays spent (the provider does not give it back); prompt tokens become the reported ones.
 */
export function settledCharge(limits: ModelLimits, maxTokens: number, usage: LlmUsage): Charge {
  const counted = usage.inputTokens - (limits.cacheReadsCount ? 0 : usage.cachedInputTokens);
  return accountingOf(limits) === 'single-tpm'
    ? { inputTokens: counted + maxTokens, outputTokens: 0 }
    : { inputTokens: counted, outputTokens: usage.outputTokens };
}
