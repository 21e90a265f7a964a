import type { LeaderboardRowDto, RunDetailDto } from '@sqlsweep/contracts';
import type { ReportRepository, RunListRow } from '@sqlsweep/db';
import { runSummaryDto, scalarParams } from './views';

/**
 * The leaderboard of a run, from the item results present now (a running run gets partial scores), best EX first
 * (ties in variant order). The one source of it: `sqlsweep run`/`status` print these rows, the API returns them.
 */
export async function leaderboard(repo: ReportRepository, runId: string): Promise<LeaderboardRowDto[]> {
  const [variants, { scores, byDifficulty, metrics }] = await Promise.all([repo.variants(runId), repo.variantScores(runId)]);
  const rows = variants.flatMap((v): LeaderboardRowDto[] => {
    const s = scores.find((x) => x.variantId === v.id);
    if (!s) return [];
    const means = Object.fromEntries(metrics.filter((m) => m.variantId === v.id).map((m) => [m.metric, m.mean]));
    return [{
      variantId: v.id, variantKey: v.variant_key, label: v.label, pipeline: v.pipeline, model: v.model, sampleIndex: v.sample_index,
      params: scalarParams(v.params), items: s.items, correct: s.correct, errors: s.errors, parseFailures: s.parseFailures, ex: (100 * s.correct) / s.items,
      scorer: s.scorer, ves: means.ves ?? null,
      metrics: means,
      byDifficulty: byDifficulty.filter((d) => d.variantId === v.id).map((d) => ({ difficulty: d.difficulty, items: d.items, correct: d.correct, ex: (100 * d.correct) / d.items })),
      inputTokens: s.inputTokens, outputTokens: s.outputTokens, costUsd: s.costUsd,
      costPerCorrectUsd: s.correct > 0 ? s.costUsd / s.correct : null, meanLatencyMs: s.meanLatencyMs, simulated: s.simulated,
    }];
  });
  return rows.sort((a, b) => b.ex - a.ex || variants.findIndex((v) => v.id === a.variantId) - variants.findIndex((v) => v.id === b.variantId));
}

/** A run with its progress per stage, its spend so far, its ETA and its leaderboard. */
export async function runDetail(repo: ReportRepository, run: RunListRow): Promise<RunDetailDto> {
  const [progress, p, board] = await Promise.all([repo.stageProgress(run.id), repo.runProgress(run.id), leaderboard(repo, run.id)]);
  const itemsPlanned = run.itemCount * run.variantCount;
  return {
    run: runSummaryDto(run), progress, itemsDone: p.itemsDone, itemsPlanned, costSoFarUsd: p.costUsd,
    etaSeconds: run.status === 'running' ? etaSeconds(run.createdAt, p.lastAt, p.itemsDone, itemsPlanned) : null,
    leaderboard: board,
  };
}

/** Time left at the average pace since the run started; null before the first item finishes. */
export function etaSeconds(startedAt: Date, lastAt: Date | null, done: number, planned: number): number | null {
  if (!lastAt || done === 0) return null;
  const perItem = (lastAt.getTime() - startedAt.getTime()) / 1000 / done;
  return Math.max(0, perItem * (planned - done));
}
