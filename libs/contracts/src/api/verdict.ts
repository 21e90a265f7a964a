import { z } from 'zod';

/**
 * What became of one item under one variant, each counted apart:
 * - `correct`: the prediction's result matches the gold's;
 * - `wrong-result`: the prediction ran and returned a different result;
 * - `sql-error`: the predicted SQL failed to execute (an error or a timeout in the sandbox);
 * - `no-sql`: the final answer held no SQL (a parse failure);
 * - `pipeline-error`: the item could not be scored (a stage failed, or its gold query is invalid).
 * Only `correct` counts towards EX.
 */
export const verdictCategories = ['correct', 'wrong-result', 'sql-error', 'no-sql', 'pipeline-error'] as const;
export const verdictCategorySchema = z.enum(verdictCategories);
export type VerdictCategory = (typeof verdictCategories)[number];
