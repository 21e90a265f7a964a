import { z } from 'zod';
import { scalarSchema } from './common';

/**
 * Two sides: `runA`/`runB` and optionally `variantA`/`variantB`. A side without a variant takes its run's only
 * variant, or the variant of the other side's variant key.
 */
export const compareQuerySchema = z.object({
  runA: z.string().uuid(),
  variantA: z.string().uuid().optional(),
  runB: z.string().uuid(),
  variantB: z.string().uuid().optional(),
  resamples: z.coerce.number().int().min(100).max(100000).default(10000),
  seed: z.coerce.number().int().default(1),
}).strict();

const sideSchema = z.object({
  runId: z.string().uuid(), variantId: z.string().uuid(), label: z.string(), items: z.number().int(), correct: z.number().int(),
  ex: z.number(), costUsd: z.number(), simulated: z.boolean(),
  /** Paired items whose final answer held no SQL on this side (parse failures, counted apart from wrong SQL). */
  parseFailures: z.number().int(),
  /** The named scorer(s) of this side's verdicts (`bird-ex@2`); null when none names one. */
  scorer: z.string().nullable(),
});

export const comparisonSchema = z.object({
  a: sideSchema,
  b: sideSchema,
  /** Items scored under both sides: everything below is computed over these. */
  pairedItems: z.number().int(),
  /** EX(B) - EX(A) in percentage points over the paired items. */
  delta: z.number(),
  interval: z.object({ low: z.number(), high: z.number(), confidence: z.number(), resamples: z.number().int() }),
  mcnemar: z.object({ onlyA: z.number().int(), onlyB: z.number().int(), statistic: z.number(), pValue: z.number(), exact: z.boolean() }),
  /** Item ids right under B and wrong under A (improved), and the other way round (regressed). */
  flipped: z.object({ improved: z.array(z.string()), regressed: z.array(z.string()) }),
  byDifficulty: z.array(z.object({ difficulty: z.string(), items: z.number().int(), exA: z.number(), exB: z.number(), delta: z.number() })),
  simulated: z.boolean(),
  /** Set when the two sides' EX came from different scorers (or a side names none or several): says which, and why the delta may mislead. */
  scorerWarning: z.string().nullable(),
}).meta({ id: 'Comparison' });
export type ComparisonDto = z.infer<typeof comparisonSchema>;

export const costAccuracyPointSchema = z.object({
  runId: z.string().uuid(), variantId: z.string().uuid(), label: z.string(), ex: z.number(), costUsd: z.number(),
  costPerCorrectUsd: z.number().nullable(),
  /** The named scorer(s) of `ex` (`bird-ex@2`); null when none names one. */
  scorer: z.string().nullable(),
  /** Not beaten by another point that is at least as accurate and at most as costly (and strictly better in one). */
  pareto: z.boolean(),
  simulated: z.boolean(),
}).meta({ id: 'CostAccuracyPoint' });
export const costAccuracySchema = z.object({ points: z.array(costAccuracyPointSchema) }).meta({ id: 'CostAccuracy' });
export type CostAccuracyDto = z.infer<typeof costAccuracySchema>;

/** `knob`: `model`, `pipeline`, `sampleIndex` or a pipeline parameter (e.g. `temperature`, `shots`, `theta`). */
export const paramSweepQuerySchema = z.object({ knob: z.string().min(1).max(100) }).strict();

/** One line per combination of the other knobs (held fixed), EX at each value of `knob`. */
export const paramSweepSchema = z.object({
  knob: z.string(),
  /** Knobs that take more than one value among the run's variants, grid parameters first (the first is the default knob). */
  varying: z.array(z.string()),
  values: z.array(scalarSchema),
  series: z.array(z.object({
    fixed: z.record(z.string(), scalarSchema),
    points: z.array(z.object({
      value: scalarSchema, variantId: z.string().uuid(), label: z.string(), ex: z.number(), items: z.number().int(), simulated: z.boolean(),
      /** 95 % Wilson interval of `ex`, in percent (the leaderboard's). */
      low: z.number(), high: z.number(),
    })),
  })),
  simulated: z.boolean(),
  /** The named scorer(s) of every EX shown (`bird-ex@2`), comma-separated; null when none names one. */
  scorer: z.string().nullable(),
}).meta({ id: 'ParamSweep' });
export type ParamSweepDto = z.infer<typeof paramSweepSchema>;
