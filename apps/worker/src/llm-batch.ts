import type { LlmBatchJobPayload, StageJobPayload } from '@sqlsweep/contracts';
import type { StageRepository } from '@sqlsweep/db';
import type { LlmBatchJob, LlmClient, LlmRequest } from '@sqlsweep/llm';
import type { LlmStage } from '@sqlsweep/pipelines';
import { DelayedError, UnrecoverableError, type Job } from '@sqlsweep/queue';
import { llmRequestOf, llmStageRun, type StageRunner } from './stage-runner';

/**
 * `llm.batch` jobs of batch-mode runs: render the prompts of a wave of LLM stages, submit them as one provider
 * batch, re-delay the job while the provider works, then store every answer as its stage's result. Every step is
 * idempotent by stage key, so a retried or duplicated job never stores a second result.
 */
export class LlmBatchRunner {
  constructor(private readonly deps: { runner: StageRunner; llm: LlmClient; stages: StageRepository; pollMs: number }) {}

  async run(p: LlmBatchJobPayload, job: Job, token?: string): Promise<void> {
    if (!p.submitted) await this.submit(p, job, token);
    const current = job.data as LlmBatchJobPayload;
    if (!current.submitted) return; // everything answered from storage, the cache, or skipped
    if (!(await this.ended(current.submitted))) {
      await job.moveToDelayed(Date.now() + this.deps.pollMs, token);
      throw new DelayedError();
    }
    await this.collect(current, current.submitted, job);
  }

  private async submit(p: LlmBatchJobPayload, job: Job, token?: string): Promise<void> {
    const { runner } = this.deps;
    const stored = await this.deps.stages.getResults(p.stages.map((s) => s.stageKey));
    const byRequest = new Map<string, { request: LlmRequest; stages: StageJobPayload[] }>();
    for (const s of p.stages) {
      if (stored.has(s.stageKey)) {
        await runner.advance(s);
        continue;
      }
      const impl = this.llmStage(s);
      const ctx = await runner.context(s, job);
      const skipped = impl.skip?.(ctx);
      if (skipped) {
        await runner.settle(s, skipped, job.id);
        continue;
      }
      const request = llmRequestOf(impl, ctx, s);
      const same = JSON.stringify(request); // identical requests are one batch item answering several stages
      byRequest.set(same, { request, stages: [...(byRequest.get(same)?.stages ?? []), s] });
    }
    if (byRequest.size === 0) return;
    const groups = [...byRequest.values()];
    let submitted;
    try {
      submitted = await this.deps.llm.submitBatch(groups.map((g) => g.request));
    } catch (e) {
      throw await runner.translate(e, job, token);
    }
    const stagesOf = new Map(groups.map((g) => [g.request, g.stages]));
    for (const hit of submitted.cached) await this.storeAnswer(stagesOf.get(hit.request) ?? [], hit.request, hit.response!, job);
    if (submitted.job) {
      const stageKeysByCustomId = Object.fromEntries(submitted.job.items.map((i) => [i.customId, (stagesOf.get(i.request) ?? []).map((s) => s.stageKey)]));
      await job.updateData({ ...p, submitted: { batch: submitted.job, stageKeysByCustomId } });
    }
  }

  private async ended(submitted: NonNullable<LlmBatchJobPayload['submitted']>): Promise<boolean> {
    return (await this.deps.llm.batchStatus(submitted.batch as LlmBatchJob)).state !== 'in_progress';
  }

  private async collect(p: LlmBatchJobPayload, submitted: NonNullable<LlmBatchJobPayload['submitted']>, job: Job): Promise<void> {
    const batch = submitted.batch as LlmBatchJob;
    const stageByKey = new Map(p.stages.map((s) => [s.stageKey, s]));
    for (const result of await this.deps.llm.ingestBatch(batch)) {
      const stages = (submitted.stageKeysByCustomId[result.customId] ?? []).map((k) => stageByKey.get(k)!).filter(Boolean);
      if (result.response) {
        await this.storeAnswer(stages, result.request, result.response, job);
      } else {
        for (const s of stages) await this.deps.runner.fail(s, result.error ?? new Error(`batch ${batch.batchId}: no answer`));
      }
    }
    await job.updateData({ ...p, submitted: undefined });
  }

  private async storeAnswer(stages: StageJobPayload[], request: LlmRequest, response: NonNullable<Awaited<ReturnType<LlmClient['ingestBatch']>>[number]['response']>, job: Job): Promise<void> {
    for (const s of stages) {
      const ctx = await this.deps.runner.context(s, job);
      await this.deps.runner.settle(s, llmStageRun(this.llmStage(s), ctx, request, response), job.id);
    }
  }

  private llmStage(s: StageJobPayload): LlmStage {
    const impl = this.deps.runner.implementation(s);
    if (impl.kind !== 'llm') throw new UnrecoverableError(`stage ${s.stage} is not an LLM stage and cannot be batched`);
    return impl;
  }
}
