import { simulationReportSchema, type RunSummaryDto, type StageTraceDto, type VariantDto } from '@sqlsweep/contracts';
import type { ReportRepository, RunListRow, StageTraceRow } from '@sqlsweep/db';

export type Scalar = string | number | boolean;
export type VariantRecord = Awaited<ReturnType<ReportRepository['variants']>>[number];

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
    sampleIndex: v.sample_index, params: scalarParams(v.params), position: v.position, resolvedKnobs: v.resolved_knobs,
  };
}

interface TraceShape { prompt?: unknown; response?: unknown; error?: unknown; simulation?: unknown }

/** A stage row as the API shows it: prompt/response from the trace, and the sandbox verdict of SQL stages. */
export function stageTraceDto(r: StageTraceRow): StageTraceDto {
  const trace = (typeof r.trace === 'object' && r.trace !== null ? r.trace : {}) as TraceShape;
  return {
    stage: r.stage, stageKey: r.stageKey, role: r.role,
    status: r.createdAt ? (isSkipped(r, trace) ? 'skipped' : 'done') : r.failure ? 'failed' : 'pending',
    output: r.output ?? null,
    prompt: trace.prompt ?? null,
    response: typeof trace.response === 'string' ? trace.response : trace.response === undefined || trace.response === null ? null : JSON.stringify(trace.response),
    error: r.failure ?? (typeof trace.error === 'string' ? trace.error : null),
    sandbox: r.role === 'sql' ? sandboxVerdict(r.output) : null,
    inputTokens: r.inputTokens ?? 0, cachedInputTokens: r.cachedInputTokens ?? 0, outputTokens: r.outputTokens ?? 0,
    costUsd: r.costUsd ?? 0, latencyMs: r.latencyMs ?? 0, simulated: r.simulated ?? false,
    simulation: simulationReportSchema.safeParse(trace.simulation).data ?? null,
    costSource: r.costSource ?? null,
    createdAt: r.createdAt ? r.createdAt.toISOString() : null,
  };
}

/**
 * An LLM stage that passed through without a call (`skip`: a correction round or revision after the chain stopped):
 * stored with no prompt and no tokens, or with an output that says so (`skipped`).
 */
function isSkipped(r: StageTraceRow, trace: TraceShape): boolean {
  if (r.role !== 'llm') return false;
  const out = r.output as { skipped?: unknown } | null;
  if (typeof out === 'object' && out !== null && out.skipped === true) return true;
  return trace.prompt === undefined && !r.inputTokens && !r.outputTokens;
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
