import type { z } from 'zod';
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

/** Scalar parameters of one variant: one value per knob. */
export type VariantParams = Record<string, string | number | boolean>;

/** The values of one variant of pipeline P: each knob's grid element type (`theta: number`, `shotSelection: 'random' | ...`). */
export type PipelineKnobs<P extends PipelineName> = {
  [K in keyof z.output<(typeof pipelineGrids)[P]>]: z.output<(typeof pipelineGrids)[P]>[K] extends ReadonlyArray<infer E> ? E : never;
};
