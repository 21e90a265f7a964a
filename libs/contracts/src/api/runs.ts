import { z } from 'zod';
import { scalarSchema } from './common';
import { verdictCategorySchema } from './verdict';

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
  /** 95 % interval of `ex` (Wilson score interval over the variant's scored items), in percent. */
  exInterval: z.object({ low: z.number(), high: z.number() }),
  /**
   * Against the best variant (the first row), over the items both scored: EX(this) − EX(best), its 95 % paired
   * bootstrap interval and McNemar's p (the compare page's tests). Null on the best row itself.
   */
  vsBest: z.object({ delta: z.number(), low: z.number(), high: z.number(), pValue: z.number(), pairedItems: z.number().int() }).nullable(),
  /** Not significantly different from the best (its interval against the best includes zero); true on the best row. */
  tiedWithBest: z.boolean(),
  /** Item results per verdict category: correct, wrong result, SQL that failed to execute, no SQL, pipeline error. */
  categories: z.record(verdictCategorySchema, z.number().int()),
}).meta({ id: 'LeaderboardRow' });
export type LeaderboardRowDto = z.infer<typeof leaderboardRowSchema>;

export const runDetailSchema = z.object({
  run: runSummarySchema,
  progress: z.array(stageProgressSchema),
  itemsDone: z.number().int(),
  itemsPlanned: z.number().int(),
  /** Spent by this run so far: LLM cost of the stage results it computed itself (reused results cost it nothing). */
  costSoFarUsd: z.number(),
  /**
   * Seconds left: the stage jobs left over the rate this run completed stage jobs at in the last 30 s; null when
   * nothing was completed in that window or the run is not running.
   */
  etaSeconds: z.number().nullable(),
  /** Distinct stage jobs planned and settled (with a result, or failed), over every stage kind. */
  stagesPlanned: z.number().int(),
  stagesSettled: z.number().int(),
  /** The leaderboard covers only the items scored so far (the run is still running, or ended before scoring all). */
  partial: z.boolean(),
  leaderboard: z.array(leaderboardRowSchema),
}).meta({ id: 'RunDetail' });

const spendSchema = z.object({ llmCalls: z.number().int(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number() });

/** What a run was estimated to cost, what it spent per stage kind, and what stage reuse and the response cache saved. */
export const runCostSchema = z.object({
  runId: z.string().uuid(),
  status: runStatusSchema,
  /** The planner's estimate for the stage jobs it had to run (after reuse), stored with the run. */
  estimate: spendSchema,
  /** What the run paid for so far: calls it made itself. */
  spent: spendSchema,
  /** Response-cache hits: answers this run took from the cache (it paid nothing; `savedUsd` is what the calls cost). */
  cache: z.object({ calls: z.number().int(), inputTokens: z.number(), outputTokens: z.number(), savedUsd: z.number() }),
  /** Stage reuse: results stored by other runs, taken by key (nothing ran; `savedUsd` is what they cost then). */
  reuse: z.object({ stages: z.number().int(), calls: z.number().int(), savedUsd: z.number() }),
  cacheNamespace: z.string(),
  byStage: z.array(z.object({
    stage: z.string(), planned: z.number().int(), done: z.number().int(),
    paidCalls: z.number().int(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number(),
    cacheCalls: z.number().int(), cacheSavedUsd: z.number(), reusedStages: z.number().int(), reusedCalls: z.number().int(), reusedSavedUsd: z.number(),
  })),
}).meta({ id: 'RunCost' });
export type RunCostDto = z.infer<typeof runCostSchema>;

/** What the token this request carries may do: read, change state, and why not. */
export const accessSchema = z.object({
  read: z.boolean(), write: z.boolean(),
  /** Why writes (or reads) are refused to this token; null when it may do both. */
  reason: z.string().nullable(),
}).meta({ id: 'Access' });
export type AccessDto = z.infer<typeof accessSchema>;

export const rerunBodySchema = z.object({
  /** The new run's cache namespace: its LLM stages call again rather than take cached answers. Default: rerun-<timestamp>. */
  cacheNamespace: z.string().min(1).max(200).optional(),
  dryRun: z.boolean().default(false),
}).strict().meta({ id: 'RerunBody' });
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
