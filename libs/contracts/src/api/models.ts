import { z } from 'zod';

/** A model paused because its provider said the account's quota or credit is spent: its jobs wait until resumed. */
export const modelPauseSchema = z.object({ model: z.string(), reason: z.string() });
export const pausedModelsQuerySchema = z.object({ runId: z.string().uuid().optional() });
export const modelResumeResponseSchema = z.object({ model: z.string(), resumed: z.literal(true), pausedFor: z.string() });

export type ModelPauseDto = z.infer<typeof modelPauseSchema>;
export type ModelResumeResponse = z.infer<typeof modelResumeResponseSchema>;
