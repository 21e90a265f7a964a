import { verdictCategories, type LeaderboardRowDto, type RunDetailDto, type VerdictCategory } from '@sqlsweep/contracts';
import type { ItemOutcomeRow, ReportRepository, RunListRow, StageRateRow } from '@sqlsweep/db';
import { mcnemarFromCounts, pairedBootstrapFromCounts, type PairedCounts } from '../compare';
import { runSummaryDto, scalarParams } from './views';

const CONFIDENCE = 0.95;
/** Resamples of the paired bootstrap against the best variant (the compare page uses 10,000 by default; ranks need less). */
const RANK_RESAMPLES = 2000;
/** The rate an ETA is read from: stage results completed in the last this many seconds. */
export const ETA_WINDOW_S = 30;

type Significance = Pick<LeaderboardRowDto, 'vsBest' | 'tiedWithBest'>;

/**
 * The leaderboard of a run, from the item results present now (a running run gets partial scores), best EX first
 * (ties in variant order). The one source of it: `sqlsweep run`/`status` print these rows, the API returns them.
 * Every EX carries its 95 % Wilson interval; every variant is tested against the best one over the items both
 * scored (paired bootstrap and McNemar, as on the compare page) and marked tied with it when the interval of the
 * difference includes zero.
 */
export async function leaderboard(repo: ReportRepository, runId: string): Promise<LeaderboardRowDto[]> {
  const [variants, { scores, byDifficulty, metrics }, categories] = await Promise.all([
    repo.variants(runId), repo.variantScores(runId), repo.insight.categoryCounts(runId),
  ]);
  const rows = variants.flatMap((v) => {
    const s = scores.find((x) => x.variantId === v.id);
    if (!s) return [];
    const means = Object.fromEntries(metrics.filter((m) => m.variantId === v.id).map((m) => [m.metric, m.mean]));
    const counts = Object.fromEntries(verdictCategories.map((c) => [c, 0])) as Record<VerdictCategory, number>;
    for (const c of categories) if (c.variantId === v.id) counts[c.category as VerdictCategory] = c.n;
    const [low, high] = wilsonInterval(s.correct, s.items);
    return [{
      variantId: v.id, variantKey: v.variant_key, label: v.label, pipeline: v.pipeline, model: v.model, sampleIndex: v.sample_index,
      params: scalarParams(v.params), items: s.items, correct: s.correct, errors: s.errors, parseFailures: s.parseFailures, ex: (100 * s.correct) / s.items,
      scorer: s.scorer, ves: means.ves ?? null,
      metrics: means,
      byDifficulty: byDifficulty.filter((d) => d.variantId === v.id).map((d) => ({ difficulty: d.difficulty, items: d.items, correct: d.correct, ex: (100 * d.correct) / d.items })),
      inputTokens: s.inputTokens, outputTokens: s.outputTokens, costUsd: s.costUsd,
      costPerCorrectUsd: s.correct > 0 ? s.costUsd / s.correct : null, meanLatencyMs: s.meanLatencyMs, simulated: s.simulated,
      exInterval: { low, high }, categories: counts,
    }];
  });
  rows.sort((a, b) => b.ex - a.ex || variants.findIndex((v) => v.id === a.variantId) - variants.findIndex((v) => v.id === b.variantId));
  if (rows.length === 0) return [];
  const significance = await againstBest(repo, runId, rows.map((r) => r.variantId), rows.reduce((n, r) => n + r.items * 7919 + r.correct, 0));
  return rows.map((r) => ({ ...r, ...significance.get(r.variantId)! }));
}

/** Paired tests of each variant against the first (the best); memoised per run and scored-item state, since pages poll. */
const memo = new Map<string, Map<string, Significance>>();

async function againstBest(repo: ReportRepository, runId: string, ranked: string[], state: number): Promise<Map<string, Significance>> {
  const key = `${runId}:${ranked.join(',')}:${state}`;
  const hit = memo.get(key);
  if (hit) return hit;
  const out = rankAgainstBestCounts(await repo.pairedCountsAgainst(runId, ranked[0]), ranked);
  if (memo.size > 200) memo.delete(memo.keys().next().value!);
  memo.set(key, out);
  return out;
}

/** Each variant of `ranked` against `ranked[0]` over the items both scored: delta, paired bootstrap interval, McNemar's p, tied or not. */
export function rankAgainstBest(outcomes: ItemOutcomeRow[], ranked: string[]): Map<string, Significance> {
  const best = new Map(outcomes.filter((o) => o.variantId === ranked[0]).map((o) => [o.itemId, o.correct]));
  const counts = new Map<string, PairedCounts>();
  for (const o of outcomes) {
    const a = best.get(o.itemId);
    if (o.variantId === ranked[0] || a === undefined) continue;
    const c = counts.get(o.variantId) ?? { n: 0, onlyA: 0, onlyB: 0 };
    c.n += 1;
    if (a && !o.correct) c.onlyA += 1;
    if (o.correct && !a) c.onlyB += 1;
    counts.set(o.variantId, c);
  }
  return rankAgainstBestCounts([...counts].map(([variantId, c]) => ({ variantId, ...c })), ranked);
}

/** The same from the paired counts of each variant against the best (ReportRepository.pairedCountsAgainst): all the tests depend on. */
export function rankAgainstBestCounts(counts: Array<PairedCounts & { variantId: string }>, ranked: string[]): Map<string, Significance> {
  const out = new Map<string, Significance>([[ranked[0], { vsBest: null, tiedWithBest: true }]]);
  for (const id of ranked.slice(1)) {
    const c = counts.find((x) => x.variantId === id);
    if (!c || c.n === 0) {
      out.set(id, { vsBest: null, tiedWithBest: false });
      continue;
    }
    const boot = pairedBootstrapFromCounts(c, { resamples: RANK_RESAMPLES, seed: 1, confidence: CONFIDENCE });
    out.set(id, {
      vsBest: { delta: boot.delta, low: boot.low, high: boot.high, pValue: mcnemarFromCounts(c).pValue, pairedItems: c.n },
      tiedWithBest: boot.low <= 0 && boot.high >= 0,
    });
  }
  return out;
}

/** The 95 % Wilson score interval of `correct` out of `n`, in percent. */
export function wilsonInterval(correct: number, n: number, z = 1.959964): [number, number] {
  if (n === 0) return [0, 100];
  const p = correct / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  return [100 * Math.max(0, centre - half), 100 * Math.min(1, centre + half)];
}

/** A run with its progress per stage, its spend so far, its ETA and its (possibly partial) leaderboard. */
export async function runDetail(repo: ReportRepository, run: RunListRow): Promise<RunDetailDto> {
  const [progress, p, board, rates] = await Promise.all([
    repo.stageProgress(run.id), repo.runProgress(run.id), leaderboard(repo, run.id), repo.insight.completionRates(run.id, ETA_WINDOW_S),
  ]);
  const itemsPlanned = run.itemCount * run.variantCount;
  const stagesPlanned = rates.stages.reduce((n, s) => n + s.planned, 0);
  const stagesSettled = rates.stages.reduce((n, s) => n + s.done + s.failed, 0);
  return {
    run: runSummaryDto(run), progress, itemsDone: p.itemsDone, itemsPlanned, costSoFarUsd: p.costUsd,
    etaSeconds: run.status === 'running' ? etaFromRates(rates.stages, rates.completedInWindow, (rates.now.getTime() - rates.windowStart.getTime()) / 1000) : null,
    stagesPlanned, stagesSettled,
    partial: run.status === 'running' || p.itemsDone < itemsPlanned,
    leaderboard: board,
  };
}

/**
 * Seconds left from the observed completion rate: the stage jobs left (every kind) over the stage jobs this run
 * completed in the last `windowS` seconds. One throughput for all kinds, since a kind that waits on another (evaluate
 * on generate) completes at the pace of the one it waits on, and a kind that stalled a moment (its stages enqueued in
 * a burst after an orchestrator restart) does not make the whole run look slow. Null when nothing was completed in
 * the window while work is left; 0 when nothing is left.
 */
export function etaFromRates(stages: Array<Pick<StageRateRow, 'planned' | 'done' | 'failed'>>, completed: number, windowS: number): number | null {
  const left = stages.reduce((n, s) => n + Math.max(0, s.planned - s.done - s.failed), 0);
  if (left === 0) return 0;
  if (windowS <= 0 || completed === 0) return null;
  return left / (completed / windowS);
}
