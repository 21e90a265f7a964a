import type { RunCostDto } from '@sqlsweep/contracts';
import type { ReportRepository, RunListRow } from '@sqlsweep/db';

/**
 * What a run was estimated to cost against what it spent, per stage kind, and what it did not pay for: answers from
 * the response cache (the cost of those calls) and stage results reused from other runs (what they cost then).
 */
export async function runCost(repo: ReportRepository, run: RunListRow): Promise<RunCostDto> {
  const [stages, estimate] = await Promise.all([repo.insight.stageCosts(run.id), repo.insight.estimate(run.id)]);
  const sum = (f: (s: (typeof stages)[number]) => number) => stages.reduce((n, s) => n + f(s), 0);
  return {
    runId: run.id, status: run.status,
    estimate: {
      llmCalls: estimate?.llmCalls ?? 0, inputTokens: estimate?.inputTokens ?? 0, outputTokens: estimate?.outputTokens ?? 0, costUsd: estimate?.costUsd ?? 0,
    },
    spent: { llmCalls: sum((s) => s.paidCalls), inputTokens: sum((s) => s.inputTokens), outputTokens: sum((s) => s.outputTokens), costUsd: sum((s) => s.costUsd) },
    cache: { calls: sum((s) => s.cacheStages), inputTokens: sum((s) => s.cacheInputTokens), outputTokens: sum((s) => s.cacheOutputTokens), savedUsd: sum((s) => s.cacheSavedUsd) },
    reuse: { stages: sum((s) => s.reusedStages), calls: sum((s) => s.reusedCalls), savedUsd: sum((s) => s.reusedSavedUsd) },
    cacheNamespace: estimate?.cacheNamespace ?? '',
    byStage: stages.map((s) => ({
      stage: s.stage, planned: s.planned, done: s.done, paidCalls: s.paidCalls, inputTokens: s.inputTokens, outputTokens: s.outputTokens, costUsd: s.costUsd,
      cacheCalls: s.cacheStages, cacheSavedUsd: s.cacheSavedUsd, reusedStages: s.reusedStages, reusedCalls: s.reusedCalls, reusedSavedUsd: s.reusedSavedUsd,
    })),
  };
}
