import { z } from 'zod';
import { operatingPointSchema } from './operating-point';

/** Grid knobs: each a list of values to sweep, with the error messages a config author needs. */
export const grid = {
  integers: (min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.array(z.number({ error: 'expected an integer' }).int({ error: 'expected an integer' }).min(min).max(max), {
      error: 'expected array of integers',
    }).min(1, 'give at least one value'),
  numbers: (min: number, max: number) =>
    z.array(z.number({ error: 'expected a number' }).min(min).max(max), { error: 'expected array of numbers' })
      .min(1, 'give at least one value'),
  /**
   * A retrieval threshold: a raw score in [min, max] (the paper's units, for the encoder the paper tuned) or the
   * operating point it stands for (`{ recall: 0.9 }`, `{ reduction: 0.6 }`), which the planner resolves to this
   * run's encoder's threshold (docs/architecture.md, "Operating points").
   */
  thresholds: (min: number, max: number) =>
    z.array(z.union([z.number({ error: 'expected a number' }).min(min).max(max), operatingPointSchema], { error: 'expected a number, { recall: 0..1 } or { reduction: 0..1 }' }), {
      error: 'expected array of thresholds',
    }).min(1, 'give at least one value'),
  booleans: () =>
    z.array(z.boolean({ error: 'expected true or false' }), { error: 'expected array of booleans' }).min(1, 'give at least one value'),
  choices: <const T extends readonly [string, ...string[]]>(values: T) =>
    z.array(z.enum(values, { error: `expected one of ${values.join(', ')}` }), { error: `expected array of ${values.join(' | ')}` })
      .min(1, 'give at least one value'),
};
