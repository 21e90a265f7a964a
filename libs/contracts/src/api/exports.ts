import { z } from 'zod';

export const exportFormats = ['spider', 'bird', 'csv', 'jsonl'] as const;
export type ExportFormat = (typeof exportFormats)[number];

/**
 * `spider`: one predicted SQL per line (`SQL\tdb_id`), in dataset order; `bird`: a JSON object from question
 * index to `SQL\t----- bird -----\tdb_id`. Both need one variant. `csv` / `jsonl`: item results, all variants
 * unless `variantId` is given.
 */
export const exportQuerySchema = z.object({
  format: z.enum(exportFormats),
  variantId: z.string().uuid().optional(),
}).strict();
export type ExportQuery = z.output<typeof exportQuerySchema>;
