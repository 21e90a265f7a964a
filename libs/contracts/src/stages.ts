import { z } from 'zod';

export const stageRoles = ['llm', 'sql', 'retrieval'] as const;
export type StageRole = (typeof stageRoles)[number];

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** What a stage job carries: enough to compute the stage from Postgres alone; runId/variantId are for logs and accounting. */
export const stageJobPayloadSchema = z.object({
  stageKey: z.string().regex(/^[0-9a-f]{64}$/),
  stage: z.string().min(1),
  datasetVersionId: z.number().int().positive(),
  itemId: z.string().min(1),
  params: z.record(z.string(), scalar),
  inputs: z.record(z.string(), z.string()),
  runId: z.string().uuid(),
  variantId: z.string().uuid(),
  /** Whether the stage ends its items' graphs (its result closes items); absent in jobs enqueued before it existed. */
  final: z.boolean().optional(),
  /**
   * The outputs of its inputs by stage key, when they were small enough to travel with the job (outputs never change
   * under a key); absent otherwise, and the worker reads them from Postgres.
   */
  inputOutputs: z.record(z.string(), z.unknown()).optional(),
});
export type StageJobPayload = z.infer<typeof stageJobPayloadSchema>;

/** A wave of one run's ready LLM stages of one model, sent to the provider as one batch. */
export const llmBatchJobPayloadSchema = z.object({
  runId: z.string().uuid(),
  model: z.string().min(1),
  stages: z.array(stageJobPayloadSchema).min(1),
  /** Set once submitted: the provider batch and which stage keys each request answers. */
  submitted: z.object({ batch: z.unknown(), stageKeysByCustomId: z.record(z.string(), z.array(z.string())) }).optional(),
});
export type LlmBatchJobPayload = z.infer<typeof llmBatchJobPayloadSchema>;

export const advanceJobPayloadSchema = z.object({ stageKey: z.string().regex(/^[0-9a-f]{64}$/) });
export type AdvanceJobPayload = z.infer<typeof advanceJobPayloadSchema>;
