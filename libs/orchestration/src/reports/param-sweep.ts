import type { ParamSweepDto } from '@sqlsweep/contracts';
import type { ReportRepository } from '@sqlsweep/db';
import { leaderboard } from './leaderboard';
import { ReportQueryError } from './query-error';
import { scalarParams, type Scalar } from './views';

export interface KnobVariant {
  variantId: string; label: string; knobs: Record<string, Scalar>; ex: number; items: number; simulated: boolean;
  /** 95 % interval of `ex`, in percent. */
  low: number; high: number;
}

export interface ParamSweepSeries {
  fixed: Record<string, Scalar>;
  points: Array<{ value: Scalar; variantId: string; label: string; ex: number; items: number; simulated: boolean; low: number; high: number }>;
}

/**
 * Groups variants by every knob except `knob` (those are held fixed within a series) and orders each series by
 * the knob's value. Variants that lack the knob are left out; `knob` unknown to all variants is the caller's 400.
 */
export function paramSweep(variants: KnobVariant[], knob: string): { values: Scalar[]; series: ParamSweepSeries[] } {
  const having = variants.filter((v) => knob in v.knobs);
  const values = sortScalars([...new Set(having.map((v) => v.knobs[knob]))]);
  const groups = new Map<string, ParamSweepSeries>();
  for (const v of having) {
    const fixed = Object.fromEntries(Object.entries(v.knobs).filter(([k]) => k !== knob).sort(([a], [b]) => a.localeCompare(b)));
    const key = JSON.stringify(fixed);
    let series = groups.get(key);
    if (!series) groups.set(key, (series = { fixed, points: [] }));
    series.points.push({ value: v.knobs[knob], variantId: v.variantId, label: v.label, ex: v.ex, items: v.items, simulated: v.simulated, low: v.low, high: v.high });
  }
  for (const s of groups.values()) s.points.sort((a, b) => values.indexOf(a.value) - values.indexOf(b.value));
  return { values, series: [...groups.values()] };
}

/**
 * Knobs that take more than one value, grid parameters first (in the order the variants carry them), then pipeline,
 * model and sampleIndex: the parameter sweep's default is the first grid knob, not the model.
 */
export function varyingKnobs(variants: Array<Pick<KnobVariant, 'knobs'>>): string[] {
  const builtIn = ['pipeline', 'model', 'sampleIndex'];
  const keys = [...new Set(variants.flatMap((v) => Object.keys(v.knobs)))];
  const varies = (k: string) => new Set(variants.map((v) => JSON.stringify(v.knobs[k] ?? null))).size > 1;
  return [...keys.filter((k) => !builtIn.includes(k)), ...builtIn.filter((k) => keys.includes(k))].filter(varies);
}

function sortScalars(values: Scalar[]): Scalar[] {
  return values.sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))));
}

/**
 * The run's EX along one knob (pipeline, model, sampleIndex or a grid parameter), the other knobs held fixed per
 * series, from the leaderboard's rows; with the scorers of those rows.
 */
export async function runParamSweep(repo: ReportRepository, runId: string, knob: string): Promise<ParamSweepDto> {
  const board = await leaderboard(repo, runId);
  const variants = board.map((r) => ({
    variantId: r.variantId, label: r.label, ex: r.ex, items: r.items, simulated: r.simulated, low: r.exInterval.low, high: r.exInterval.high,
    knobs: { pipeline: r.pipeline, model: r.model, sampleIndex: r.sampleIndex, ...scalarParams(r.params) },
  }));
  // The knobs come from the run's variants, so a run with no result yet has them too (and an empty sweep).
  const planned = (await repo.variants(runId)).map((v) => ({ knobs: { pipeline: v.pipeline, model: v.model, sampleIndex: v.sample_index, ...scalarParams(v.params) } }));
  if (!planned.some((v) => knob in v.knobs)) {
    const known = [...new Set(planned.flatMap((v) => Object.keys(v.knobs)))].sort();
    throw new ReportQueryError('query.knob', `no variant of this run has "${knob}"; knobs: ${known.join(', ')}`);
  }
  const scorers = [...new Set(board.flatMap((r) => r.scorer?.split(',') ?? []))].sort();
  return { knob, varying: varyingKnobs(planned), ...paramSweep(variants, knob), simulated: variants.some((v) => v.simulated), scorer: scorers.join(',') || null };
}
