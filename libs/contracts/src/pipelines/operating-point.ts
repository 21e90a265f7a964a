import { z } from 'zod';

/**
 * A retrieval threshold given as the operating point it stands for instead of a raw score: the share of gold
 * tables kept (`recall`) or of non-gold tables filtered out (`reduction`), as `sqlsweep retriever eval` measures
 * them. The planner turns it into the threshold that reaches it with the run's encoder on the run's dataset.
 */
export type OperatingPoint = { recall: number } | { reduction: number };

export const operatingPointSchema = z.union([
  z.strictObject({ recall: z.number({ error: 'expected a number in [0, 1]' }).min(0).max(1) }),
  z.strictObject({ reduction: z.number({ error: 'expected a number in [0, 1]' }).min(0).max(1) }),
], { error: 'expected a number, { recall: 0..1 } or { reduction: 0..1 }' });

export function isOperatingPoint(value: unknown): value is OperatingPoint {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && ('recall' in value || 'reduction' in value);
}

/** `recall@0.9` / `reduction@0.6`: how an operating point reads in labels and messages. */
export function describeOperatingPoint(point: OperatingPoint): string {
  return 'recall' in point ? `recall@${point.recall}` : `reduction@${point.reduction}`;
}
