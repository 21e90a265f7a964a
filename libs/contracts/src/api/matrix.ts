import { z } from 'zod';
import { verdictCategorySchema } from './verdict';

/**
 * Which items the matrix lists: every item, those some variant failed, those where some variant's SQL failed to
 * execute, or those the variants disagree on (right under one, not under another).
 */
export const matrixModes = ['all', 'failures', 'sql-errors', 'disagree'] as const;
export const matrixModeSchema = z.enum(matrixModes);
export type MatrixMode = (typeof matrixModes)[number];

export const itemMatrixQuerySchema = z.object({
  mode: matrixModeSchema.default('all'),
  /** Case-insensitive substring of the question or the item id. */
  q: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
}).strict();
export type ItemMatrixQuery = z.output<typeof itemMatrixQuerySchema>;

export const matrixCellSchema = z.object({
  variantId: z.string().uuid(),
  category: verdictCategorySchema,
  reason: z.string(),
  predictedSql: z.string().nullable(),
}).meta({ id: 'MatrixCell' });
export type MatrixCellDto = z.infer<typeof matrixCellSchema>;

/** Items (rows, in dataset order) by variants (columns): each cell the variant's verdict on the item, null while it has none. */
export const itemMatrixSchema = z.object({
  runId: z.string().uuid(),
  mode: matrixModeSchema,
  variants: z.array(z.object({ variantId: z.string().uuid(), label: z.string() })),
  rows: z.array(z.object({
    itemId: z.string(), dbId: z.string(), question: z.string(), difficulty: z.string().nullable(),
    /** One per variant, in the order of `variants`. */
    cells: z.array(matrixCellSchema.nullable()),
  })),
  /** Items in each mode (with `q` applied); `total` is that of `mode`. */
  counts: z.record(matrixModeSchema, z.number().int()),
  total: z.number().int(), limit: z.number().int(), offset: z.number().int(),
}).meta({ id: 'ItemMatrix' });
export type ItemMatrixDto = z.infer<typeof itemMatrixSchema>;
