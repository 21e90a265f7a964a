import { z } from 'zod';
import { grid } from './grid';

const fewShotGrid = () => z.strictObject({
  temperature: grid.numbers(0, 2).default([0]),
  maxTokens: grid.integers(16).default([512]),
  /** number of training examples shown before the question */
  shots: grid.integers(0, 50).default([3]),
  /** seed of the example choice */
  shotSeed: grid.integers().default([0]),
});

/**
 * Few-shot baselines in the zero-shot prompt style: `fixed-few-shot` shows the same k training examples to every
 * item (a seeded choice from the train split), `random-few-shot` draws k training examples per item (seeded by
 * shotSeed and the item).
 */
export const baselinesGrids = {
  'fixed-few-shot': fewShotGrid(),
  'random-few-shot': fewShotGrid(),
};
