import type { LeaderboardRowDto, RunDetailDto, RunSummaryDto, StageTraceDto, VariantDto } from '@sqlsweep/contracts';
import type { ApiReadRepository, RunListRow, StageTraceRow } from '@sqlsweep/db';
import type { Scalar } from './param-sweep';

type VariantRecord = Awaited<ReturnType<ApiReadRepository['variants']>>[number];

export function runSummaryDto(r: RunListRow): RunSummaryDto {
  return { ...r, createdAt: r.createdAt.toISOString(), finishedAt: r.finishedAt ? r.finishedAt.toISOString() : null };
}

/** Variant parameters restricted to scalars (what the contract and the knob views deal in). */
export function scalarParams(params: unknown): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  if (typeof params !== 'object' || params === null) return out;
  for (const [k, v] of Object.entries(params)) if (['string', 'number', 'boolean'].includes(typeof v)) out[k] = v as Scalar;
  return out;
}

export function variantDto(v: VariantRecord): VariantDto {
  return {
    id: v.id, runId: v.run_id, variantKey: v.variant_key, label: v.label, pipeline: v.pipeline, model: v.model,
    sampleIndex: v.sample_index, params: scalarParams(v.params), position: v.position,
  };
}

/** Leaderboard from the item results present now, best EX first (ties in variant order). */
export async function leaderboard(repo: ApiReadRepository, runId: string): Promise<LeaderboardRowDto[]> {
  const [variants, { scores, byDifficulty, metrics }] = await Promise.all([repo.variants(runId), repo.variantScores(runId)]);
  const rows = variants.flatMap((v): LeaderboardRowDto[] => {
    const s = scores.find((x) => x.variantId === v.id);
    if (!s) return [];
    const means = Object.fromEntries(metrics.filter((m) => m.variantId === v.id).map((m) => [m.metric, m.mean]));
    return [{
      variantId: v.id, variantKey: v.variant_key, label: v.label, pipeline: v.pipeline, model: v.model, sampleIndex: v.sample_index,
      params: scalarParams(v.params), items: s.items, correct: s.correct, errors: s.errors, ex: (100 * s.correct) / s.items,
      scorer: s.scorer, ves: means.ves ?? null,
      metrics: means,
      byDifficulty: byDifficulty.filter((d) => d.variantId === v.id).map((d) => ({ difficulty: d.difficulty, items: d.items, correct: d.correct, ex: (100 * d.correct) / d.items })),
      inputTokens: s.inputTokens, outputTokens: s.outputTokens, costUsd: s.costUsd,
      costPerCorrectUsd: s.correct > 0 ? s.costUsd / s.correct : null, meanLatencyMs: s.meanLatencyMs, simulated: s.simulated,
    }];
  });
  return rows.sort((a, b) => b.ex - a.ex || variants.findIndex((v) => v.id === a.variantId) - variants.findIndex((v) => v.id === b.variantId));
}

export async function runDetail(repo: ApiReadRepository, run: RunListRow, progress: RunDetailDto['progress']): Promise<RunDetailDto> {
  const [p, board] = await Promise.all([repo.runProgress(run.id), leaderboard(repo, run.id)]);
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

interface TraceShape { prompt?: unknown; response?: unknown; error?: unknown }

/** A stage row as the API shows it: prompt/response from the trace, and the sandbox verdict of SQL stages. */
export function stageTraceDto(r: StageTraceRow): StageTraceDto {
  const trace = (typeof r.trace === 'object' && r.trace !== null ? r.trace : {}) as TraceShape;
  return {
    stage: r.stage, stageKey: r.stageKey, role: r.role,
    status: r.createdAt ? 'done' : r.failure ? 'failed' : 'pending',
    output: r.output ?? null,
    prompt: trace.prompt ?? null,
    response: typeof trace.response === 'string' ? trace.response : trace.response === undefined || trace.response === null ? null : JSON.stringify(trace.response),
    error: r.failure ?? (typeof trace.error === 'string' ? trace.error : null),
    sandbox: r.role === 'sql' ? sandboxVerdict(r.output) : null,
    inputTokens: r.inputTokens ?? 0, cachedInputTokens: r.cachedInputTokens ?? 0, outputTokens: r.outputTokens ?? 0,
    costUsd: r.costUsd ?? 0, latencyMs: r.latencyMs ?? 0, simulated: r.simulated ?? false,
    createdAt: r.createdAt ? r.createdAt.toISOString() : null,
  };
}

/** Gold stages store the execution result itself; evaluate stages store it under `predicted`. */
function sandboxVerdict(output: unknown): StageTraceDto['sandbox'] {
  if (typeof output !== 'object' || output === null) return null;
  const o = output as { status?: unknown; rows?: unknown; message?: unknown; predicted?: unknown };
  const exec = typeof o.predicted === 'object' && o.predicted !== null ? (o.predicted as typeof o) : o;
  if (typeof exec.status !== 'string') return null;
  const rows = Array.isArray(exec.rows) ? exec.rows.length : typeof exec.rows === 'number' ? exec.rows : undefined;
  return {
    status: exec.status,
    ...(rows !== undefined ? { rows } : {}),
    ...(typeof exec.message === 'string' ? { message: exec.message } : {}),
  };
}
