import { createHash } from 'node:crypto';
import type { PipelineEntry, SweepConfig } from './sweep-config';
import type { PipelineName, VariantParams } from './pipeline-params';

export interface VariantSpec {
  /** Content hash of (pipeline, params, model, sample index): the same variant in two sweeps has the same key. */
  key: string;
  label: string;
  pipeline: PipelineName;
  model: string;
  sampleIndex: number;
  params: VariantParams;
}

/** Stable JSON: object keys sorted, so equal values always hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function cartesian(grid: Record<string, ReadonlyArray<string | number | boolean>>): VariantParams[] {
  return Object.keys(grid)
    .sort()
    .reduce<VariantParams[]>(
      (combos, knob) => combos.flatMap((combo) => grid[knob].map((value) => ({ ...combo, [knob]: value }))),
      [{}],
    );
}

/** How many variants one pipeline entry makes, and the factors of that product (for messages). */
export interface EntryVariantCount {
  /** Index of the entry in `pipelines`. */
  index: number;
  pipeline: PipelineName;
  /** Grid knobs with more than one value, in key order, with their sizes. */
  factors: Array<{ knob: string; size: number }>;
  models: number;
  repeats: number;
  count: number;
}

/**
 * Counts the variants `expandVariants` would make, per pipeline entry, from the grid sizes alone: nothing is
 * expanded, so a grid of 10^7 combinations costs as little to count as one of 10.
 */
export function countVariants(config: SweepConfig): EntryVariantCount[] {
  return config.pipelines.map((entry, index) => {
    const factors = Object.keys(entry.grid).sort().map((knob) => ({ knob, size: entry.grid[knob].length })).filter((f) => f.size !== 1);
    const count = factors.reduce((n, f) => n * f.size, 1) * config.models.length * config.repeats;
    return { index, pipeline: entry.pipeline, factors, models: config.models.length, repeats: config.repeats, count };
  });
}

/** Expands one pipeline entry of a sweep into its variants: grid x models x repeats, in a stable order. */
export function expandEntryVariants(config: SweepConfig, entry: PipelineEntry): VariantSpec[] {
  const variants: VariantSpec[] = [];
  // A label names the knobs this entry sweeps; the fixed ones are the same for all its variants.
  const swept = Object.keys(entry.grid).filter((k) => entry.grid[k].length > 1);
  for (const params of cartesian(entry.grid)) {
    for (const model of config.models) {
      for (let sampleIndex = 0; sampleIndex < config.repeats; sampleIndex++) {
        const knobs = swept.sort().map((k) => `${k}=${params[k]}`).join(',');
        const label = [entry.label ?? entry.pipeline, model, knobs, config.repeats > 1 ? `#${sampleIndex}` : '']
          .filter(Boolean)
          .join(' ');
        variants.push({
          key: contentHash({ pipeline: entry.pipeline, params, model, sampleIndex }).slice(0, 24),
          label,
          pipeline: entry.pipeline,
          model,
          sampleIndex,
          params,
        });
      }
    }
  }
  return variants;
}

/** Expands a sweep into its variants: pipelines x grid x models x repeats, in a stable order. */
export function expandVariants(config: SweepConfig): VariantSpec[] {
  return config.pipelines.flatMap((entry) => expandEntryVariants(config, entry));
}
