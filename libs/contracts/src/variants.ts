import { createHash, hash } from 'node:crypto';
import type { PipelineEntry, SweepConfig } from './sweep-config';
import type { KnobValue, PipelineName, ResolvedVariantParams, VariantParams } from './pipeline-params';
import { describeOperatingPoint, isOperatingPoint, type OperatingPoint } from './pipelines/operating-point';

export interface VariantSpec {
  /** Content hash of (pipeline, params, model, sample index): the same variant in two sweeps has the same key. */
  key: string;
  label: string;
  pipeline: PipelineName;
  model: string;
  sampleIndex: number;
  params: VariantParams;
}

/** Strings JSON.stringify would change besides quoting them: quotes, backslashes, control characters, lone surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `"key":` of the object keys met so far: stage keys use the same few names millions of times. */
const quotedKeys = new Map<string, string>();

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(key)}:`;
    if (quotedKeys.size < 10_000) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * Stable JSON: object keys sorted, so equal values always hash equally. Stage keys are this text's hash and are
 * stored, so it must never change, quirks included: an `undefined` object value is left out, one in an array (or a
 * function there) leaves an empty slot (`[1,]`), a function as an object value is written `undefined`, and an
 * object other than an array (a Date, a Map) is written by its own enumerable properties.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const element = canonicalJson(value[i]) as string | undefined;
      if (element !== undefined) out += element;
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${quotedKey(key)}${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

/** SHA-256 in one call where Node has it (20.12+): the same digest as a Hash object's, made with less work. */
const sha256Hex: (text: string) => string = typeof hash === 'function'
  ? (text) => hash('sha256', text, 'hex')
  : (text) => createHash('sha256').update(text).digest('hex');

export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

function variantKey(pipeline: PipelineName, params: VariantParams, model: string, sampleIndex: number): string {
  return contentHash({ pipeline, params, model, sampleIndex }).slice(0, 24);
}

function knobText(value: KnobValue): string {
  return isOperatingPoint(value) ? describeOperatingPoint(value) : String(value);
}

/** A variant with every operating point replaced by a number: what the planner keys and runs. */
export interface ResolvedVariantSpec extends VariantSpec {
  params: ResolvedVariantParams;
}

/** The threshold one operating-point knob of a variant resolved to. */
export interface ResolvedKnob {
  knob: string;
  point: OperatingPoint;
  value: number;
}

/**
 * Substitutes resolved thresholds for a variant's operating points: its key becomes the key of the same variant
 * written with the raw number (the two run the same stages), and its label shows the mapping (`theta=recall@0.9→4.5`).
 * Throws when an operating point is left unresolved.
 */
export function resolveVariantKnobs(variant: VariantSpec, resolved: ResolvedKnob[]): ResolvedVariantSpec {
  const params: ResolvedVariantParams = {};
  let label = variant.label;
  for (const [knob, value] of Object.entries(variant.params)) {
    if (!isOperatingPoint(value)) {
      params[knob] = value;
      continue;
    }
    const r = resolved.find((x) => x.knob === knob);
    if (!r) throw new Error(`variant ${variant.label}: the operating point of "${knob}" (${describeOperatingPoint(value)}) was not resolved`);
    params[knob] = r.value;
    label = label.replace(`${knob}=${describeOperatingPoint(value)}`, `${knob}=${describeOperatingPoint(value)}→${r.value}`);
  }
  return { ...variant, params, label, key: variantKey(variant.pipeline, params, variant.model, variant.sampleIndex) };
}

function cartesian(grid: Record<string, ReadonlyArray<KnobValue>>): VariantParams[] {
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
  // An operating point is always named: the label then shows the threshold it resolved to.
  const swept = Object.keys(entry.grid).filter((k) => entry.grid[k].length > 1 || entry.grid[k].some(isOperatingPoint));
  for (const params of cartesian(entry.grid)) {
    for (const model of config.models) {
      for (let sampleIndex = 0; sampleIndex < config.repeats; sampleIndex++) {
        const knobs = swept.sort().map((k) => `${k}=${knobText(params[k])}`).join(',');
        const label = [entry.label ?? entry.pipeline, model, knobs, config.repeats > 1 ? `#${sampleIndex}` : '']
          .filter(Boolean)
          .join(' ');
        variants.push({
          key: variantKey(entry.pipeline, params, model, sampleIndex),
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
