import { LlmError } from './errors';
import { apiModelOf, type ModelResolver, type ResolvedModel } from './model-resolution';
import { costUsd } from './pricing';
import { rateLimitObservation } from './providers/http-headers';
import type { ProviderResult, RateLimitObservation } from './providers/provider';
import type { LlmCallObservation } from './call-pace';
import { OutputCaps } from './output-caps';
import { admissionCharge, budgetLimits, settledCharge } from './rate-accounting';
import type { BudgetLease, RateBudget } from './rate-budget';
import { estimateTokens } from './tokens';
import type { LlmRequest, LlmResponse } from './types';

/**
 * One call to a provider under the shared rate budget: admitted at its estimated charge, settled at what the provider
 * counted, its rate-limit headers learned, and priced.
 */
export class BudgetedCaller {
  /** Running mean of output tokens per model: what the budget reserves before a call. */
  private readonly meanOutput = new Map<string, number>();
  /** Models whose provider announced higher limits than the catalog declares (reported once per process). */
  readonly allowsMore = new Map<string, string>();
  constructor(
    private readonly models: ModelResolver,
    private readonly budget: RateBudget | undefined,
    private readonly log: (obj: object) => void,
    /** Every call the provider answered: its charge, budget wait and latency (what sizes the LLM concurrency). */
    private readonly onCall?: (o: LlmCallObservation) => void,
    /** The `max_tokens` sent per (model, stage), learned from its answers' lengths. */
    private readonly outputCaps = new OutputCaps(),
  ) {}

  /**
   * Sends the stage's learned output cap as `max_tokens` (a provider charging `max_tokens` at admission then counts
   * what the stage needs); an answer that fills the cap may be cut short and is asked again with the stage's own
   * limit, `maxTokens`, both calls paid and reported together.
   */
  async call(m: ResolvedModel, req: LlmRequest, maxTokens: number): Promise<LlmResponse> {
    const stage = req.attribution?.stage;
    const sent = this.outputCaps.capFor(m.name, stage, maxTokens);
    const first = await this.send(m, req, maxTokens, sent);
    if (!OutputCaps.needsFullLimit(sent, maxTokens, first.usage.outputTokens)) {
      this.outputCaps.observe(m.name, stage, first.usage.outputTokens);
      return first;
    }
    this.log({ msg: 'llm answer filled its learned max_tokens: asked again with the stage limit', ...req.attribution, model: m.name, sentMaxTokens: sent, maxTokens });
    const full = await this.send(m, req, maxTokens, maxTokens);
    this.outputCaps.observe(m.name, stage, full.usage.outputTokens);
    return paidTogether(first, full);
  }

  /** One call sending `maxTokens` as the length limit, within the stage's `limit`. */
  private async send(m: ResolvedModel, req: LlmRequest, limit: number, maxTokens: number): Promise<LlmResponse> {
    const provider = this.models.provider(m);
    const budget = this.budget;
    const inputEstimate = estimateTokens(apiModelOf(m), req.messages);
    if (inputEstimate + limit > m.config.contextWindow) {
      throw new LlmError('bad_request', `${m.name}: ${inputEstimate} input + ${limit} output tokens exceed the context window of ${m.config.contextWindow}`);
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
        apiModel: apiModelOf(m),
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
    const settled = settledCharge(m.config.limits, maxTokens, result.usage);
    // What the call cost the limits once settled (not the admission estimate): what paces the next calls.
    this.onCall?.({ model: m.name, limits: budgetLimits(m.config.limits), inputTokens: settled.inputTokens, outputTokens: settled.outputTokens, waitedMs: lease?.waitedMs ?? 0, latencyMs });
    if (budget && lease) {
      await budget.settleAndObserve(lease, settled, result.rateLimit);
      this.noteHigherLimits(m, result.rateLimit);
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
      ...(result.simulation ? { simulation: result.simulation } : {}),
      provider: m.providerName,
      model: m.name,
    };
    if (result.simulationProblem) this.log({ severity: 'warn', msg: 'llm simulator report ignored', ...req.attribution, model: m.name, problem: result.simulationProblem });
    this.log({ msg: 'llm call', ...req.attribution, model: m.name, provider: m.providerName, ...response.usage, costUsd: response.costUsd, latencyMs, simulated: response.simulated, waitedMs: lease?.waitedMs ?? 0 });
    return response;
  }

  /** Feeds the provider's rate-limit headers to the shared budget, and reports a declared limit below the server's. */
  private async learnLimits(budget: RateBudget, m: ResolvedModel, obs: RateLimitObservation): Promise<void> {
    await budget.observe(m.name, budgetLimits(m.config.limits), obs);
    this.noteHigherLimits(m, obs);
  }

  /** Reports (once per model) a declared limit below what the provider's headers announce. */
  private noteHigherLimits(m: ResolvedModel, obs: RateLimitObservation): void {
    if (this.allowsMore.has(m.name)) return;
    const declared = budgetLimits(m.config.limits);
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
}

/** One answer for two calls (the first cut short by a learned cap): the second's output, both calls' tokens and cost. */
function paidTogether(first: LlmResponse, full: LlmResponse): LlmResponse {
  const usage = {
    inputTokens: first.usage.inputTokens + full.usage.inputTokens,
    cachedInputTokens: first.usage.cachedInputTokens + full.usage.cachedInputTokens,
    outputTokens: first.usage.outputTokens + full.usage.outputTokens,
    ...(first.usage.cacheWriteInputTokens !== undefined || full.usage.cacheWriteInputTokens !== undefined
      ? { cacheWriteInputTokens: (first.usage.cacheWriteInputTokens ?? 0) + (full.usage.cacheWriteInputTokens ?? 0) }
      : {}),
  };
  return { ...full, usage, costUsd: first.costUsd + full.costUsd, latencyMs: first.latencyMs + full.latencyMs };
}
