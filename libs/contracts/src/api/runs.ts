import { z } from 'zod';
import { scalarSchema } from './common';

/** 'running' ends in one of the others: 'done' (every item has a result, errored ones included), 'failed' (the run cannot proceed: `failureReason`), 'cancelled'. */
export const runStatusSchema = z.enum(['running', 'done', 'failed', 'cancelled']);

export const runSummarySchema = z.object({
  id: z.string().uuid(),
  sweepId: z.string().uuid(),
  sweepName: z.string(),
  datasetVersionId: z.number().int(),
  status: runStatusSchema,
  priority: z.string(),
  itemCount: z.number().int(),
  variantCount: z.number().int(),
  stageJobs: z.number().int(),
  reusedStages: z.number().int(),
  simulated: z.boolean(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Why a failed run could not proceed; null for any other status. */
  failureReason: z.string().nullable(),
}).meta({ id: 'RunSummary' });
export type RunSummaryDto = z.infer<typeof runSummarySchema>;

export const listRunsQuerySchema = z.object({
  status: runStatusSchema.optional(),
  sweepId: z.string().uuid().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
}).strict();

export const stageProgressSchema = z.object({
  stage: z.string(), planned: z.number().int(), done: z.number().int(), failed: z.number().int(),
}).meta({ id: 'StageProgress' });

export const difficultyScoreSchema = z.object({
  difficulty: z.string(), items: z.number().int(), correct: z.number().int(), ex: z.number(),
});

/** One row of a run's leaderboard; ves is null where the pipeline did not measure efficiency (no `ves` metric). */
export const leaderboardRowSchema = z.object({
  variantId: z.string().uuid(),
  variantKey: z.string(),
  label: z.string(),
  pipeline: z.string(),
  model: z.string(),
  sampleIndex: z.number().int(),
  params: z.record(z.string(), scalarSchema),
  items: z.number().int(),
  correct: z.number().int(),
  errors: z.number().int(),
  /**
   * Items whose final answer held no SQL (parse failures): not correct under EX, but counted apart from wrong SQL.
   * items = correct + wrong SQL + parseFailures + errors.
   */
  parseFailures: z.number().int(),
  ex: z.number(),
  /** The named scorer(s) of `ex`, `name@version` (`bird-ex@2`), comma-separated if items differ; null when none names one. */
  scorer: z.string().nullable(),
  ves: z.number().nullable(),
  /** Per-item stage metrics (schema-linking precision/recall, retrieval recall, ...) averaged over the variant's items. */
  metrics: z.record(z.string(), z.number()),
  byDifficulty: z.array(difficultyScoreSchema),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  costPerCorrectUsd: z.number().nullable(),
  meanLatencyMs: z.number(),
  simulated: z.boolean(),
}).meta({ id: 'LeaderboardRow' });
export type LeaderboardRowDto = z.infer<typeof leaderboardRowSchema>;

export const runDetailSchema = z.object({
  run: runSummarySchema,
  progress: z.array(stageProgressSchema),
  itemsDone: z.number().int(),
  itemsPlanned: z.number().int(),
  /** Spent by this run so far: LLM cost of the stage results it computed itself (reused results cost it nothing). */
  costSoFarUsd: z.number(),
  /** Seconds left at the rate observed so far; null when nothing finished yet or the run is not running. */
  etaSeconds: z.number().nullable(),
  leaderboard: z.array(leaderboardRowSchema),
}).meta({ id: 'RunDetail' });
export type RunDetailDto = z.infer<typeof runDetailSchema>;

export const createRunBodySchema = z.object({
  config: z.string({ error: 'expected the sweep config as a YAML string' }),
  source: z.string().default('request body'),
  dryRun: z.boolean().default(false),
}).strict().meta({ id: 'CreateRunBody' });

export const createRunResponseSchema = z.object({
  runId: z.string().uuid().optional(),
  dryRun: z.boolean().optional(),
  variants: z.number().int(),
  items: z.number().int(),
  stageJobs: z.number().int(),
  reused: z.number().int(),
  byStage: z.record(z.string(), z.unknown()),
  simulated: z.boolean(),
}).meta({ id: 'CreateRunResponse' });

export const cancelRunResponseSchema = z.object({
  runId: z.string().uuid(),
  status: runStatusSchema,
  /** Waiting stage jobs of this run taken off the queues. */
  removedJobs: z.number().int(),
}).meta({ id: 'CancelRunResponse' });
export type CancelRunResponse = z.infer<typeof cancelRunResponseSchema>;

export const resumeRunResponseSchema = z.object({ runId: z.string().uuid() }).catchall(z.unknown()).meta({ id: 'ResumeRunResponse' });

export const variantSchema = z.object({
  id: z.string().uuid(), runId: z.string().uuid(), variantKey: z.string(), label: z.string(), pipeline: z.string(),
  model: z.string(), sampleIndex: z.number().int(), params: z.record(z.string(), scalarSchema), position: z.number().int(),
  /** The thresholds this variant's operating points (`theta: { recall: 0.9 }`) resolved to, with what they reach. */
  resolvedKnobs: z.array(z.object({
    knob: z.string(), point: z.union([z.object({ recall: z.number() }), z.object({ reduction: z.number() })]), value: z.number(),
    recall: z.number(), reduction: z.number(),
    curve: z.object({ datasetHash: z.string(), encoder: z.string(), encoderFingerprint: z.string(), optionsKey: z.string(), items: z.number().int() }),
  })),
}).meta({ id: 'Variant' });
export type VariantDto = z.infer<typeof variantSchema>;

export const sweepSummarySchema = z.object({
  id: z.string().uuid(), name: z.string(), source: z.string(), configHash: z.string(), createdAt: z.string(), runIds: z.array(z.string().uuid()),
}).meta({ id: 'SweepSummary' });
export const sweepDetailSchema = sweepSummarySchema.extend({ config: z.unknown() }).meta({ id: 'SweepDetail' });
export type SweepSummaryDto = z.infer<typeof sweepSummarySchema>;
export type SweepDetailDto = z.infer<typeof sweepDetailSchema>;
