import { z } from 'zod';

/**
 * Every pipeline's knobs. A grid entry is a list of values to sweep; a knob left out takes the paper default
 * (a one-value grid). Later pipelines add their entry here and nowhere else.
 */
const integers = (min = 0) =>
  z.array(z.number({ error: 'expected an integer' }).int({ error: 'expected an integer' }).min(min), {
    error: 'expected array of integers',
  }).min(1, 'give at least one value');
const numbers = (min: number, max: number) =>
  z.array(z.number({ error: 'expected a number' }).min(min).max(max), { error: 'expected array of numbers' })
    .min(1, 'give at least one value');

export const pipelineGrids = {
  'zero-shot': z.strictObject({
    temperature: numbers(0, 2).default([0]),
    maxTokens: integers(16).default([512]),
  }),
} as const;

export type PipelineName = keyof typeof pipelineGrids;
export const pipelineNames = Object.keys(pipelineGrids) as PipelineName[];

/** Scalar parameters of one variant: one value per knob. */
export type VariantParams = Record<string, string | number | boolean>;
