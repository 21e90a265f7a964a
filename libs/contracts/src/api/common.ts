import { z } from 'zod';

/** Every 4xx body: a machine-readable error, the request field at fault (dotted path) and the reason. */
export const apiErrorSchema = z.object({
  error: z.string(),
  field: z.string().optional(),
  reason: z.string().optional(),
  source: z.string().optional(),
  path: z.string().optional(),
}).meta({ id: 'ApiError' });
export type ApiError = z.infer<typeof apiErrorSchema>;

export const uuidSchema = z.string().uuid();
export const scalarSchema = z.union([z.string(), z.number(), z.boolean()]);

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
}
