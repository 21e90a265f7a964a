import { z } from 'zod';
import { grid } from './grid';

export const zeroShotGrids = {
  'zero-shot': z.strictObject({
    temperature: grid.numbers(0, 2).default([0]),
    maxTokens: grid.integers(16).default([512]),
  }),
};
