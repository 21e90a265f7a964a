import type { z } from 'zod';
import type { OperatingPoint } from './pipelines/operating-point';
import { zeroShotGrids } from './pipelines/zero-shot';
import { rbSqlGrids } from './pipelines/rb-sql';
import { r3Grids } from './pipelines/r3';
import { baselinesGrids } from './pipelines/baselines';
import { drChainGrids } from './pipelines/dr-chain';
import { ucsSqlGrids } from './pipelines/ucs-sql';

/**
 * Every pipeline's knobs, one file per method under pipelines/. A grid entry is a list of values to sweep; a knob
 * left out takes the paper default (a one-value grid). A method adds one import and one spread line here.
 */
export const pipelineGrids = {
  ...rbSqlGrids,
  ...ucsSqlGrids,
  ...r3Grids,
  ...baselinesGrids,
  ...drChainGrids,
  ...zeroShotGrids,
} as const;

export type PipelineName = keyof typeof pipelineGrids;
export const pipelineNames = Object.keys(pipelineGrids) as PipelineName[];

/** One grid value: a scalar, or a threshold's operating point that the planner resolves to a number. */
export type KnobValue = string | number | boolean | OperatingPoint;

/** Parameters of one variant: one value per knob. Operating points are resolved by the planner before keying. */
export type VariantParams = Record<string, KnobValue>;

/** A variant's parameters once the planner resolved its operating points: scalars only (what stage keys hash). */
export type ResolvedVariantParams = Record<string, string | number | boolean>;

/**
 * The values one stage of pipeline P reads: each knob's grid element type (`shotSelection: 'random' | ...`), with a
 * threshold's operating point already resolved to its number (`theta: number`) — the planner does that before any
 * stage is keyed or run.
 */
export type PipelineKnobs<P extends PipelineName> = {
  [K in keyof z.output<(typeof pipelineGrids)[P]>]: z.output<(typeof pipelineGrids)[P]>[K] extends ReadonlyArray<infer E> ? Exclude<E, OperatingPoint> : never;
};
