import { z } from 'zod';
import { pageQuerySchema, pageSchema } from './common';

export const datasetVersionSchema = z.object({
  id: z.number().int(),
  datasetName: z.string(),
  contentHash: z.string(),
  format: z.enum(['spider', 'bird', 'minibench']),
  sourcePath: z.string(),
  itemCount: z.number().int(),
  databases: z.number().int(),
  createdAt: z.string(),
}).meta({ id: 'DatasetVersion' });
export type DatasetVersionDto = z.infer<typeof datasetVersionSchema>;

export const datasetItemSchema = z.object({
  itemId: z.string(), split: z.enum(['train', 'dev']), dbId: z.string(), question: z.string(),
  evidence: z.string().nullable(), goldSql: z.string(), difficulty: z.string().nullable(), hardness: z.string().nullable(),
}).meta({ id: 'DatasetItem' });
export type DatasetItemDto = z.infer<typeof datasetItemSchema>;

export const datasetItemsQuerySchema = pageQuerySchema.extend({ split: z.enum(['train', 'dev']).default('dev') }).strict();
export const datasetItemsPageSchema = pageSchema(datasetItemSchema).meta({ id: 'DatasetItemsPage' });
