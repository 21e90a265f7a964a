import { z } from 'zod';
import { datasetItemsPageSchema, datasetItemsQuerySchema, datasetVersionSchema } from './datasets';
import { pageQuerySchema } from './common';
import {
  cancelRunResponseSchema, createRunBodySchema, createRunResponseSchema, listRunsQuerySchema, resumeRunResponseSchema,
  runDetailSchema, runSummarySchema, runCostSchema, accessSchema, rerunBodySchema, sweepDetailSchema, sweepSummarySchema, variantSchema, leaderboardRowSchema,
} from './runs';
import { itemDetailSchema, itemResultsPageSchema, itemResultsQuerySchema, itemTablesSchema, stageTraceSchema } from './results';
import { compareQuerySchema, comparisonSchema, costAccuracySchema, paramSweepQuerySchema, paramSweepSchema } from './compare';
import { exportQuerySchema } from './exports';
import { itemMatrixQuerySchema, itemMatrixSchema } from './matrix';
import { modelPauseSchema, modelResumeResponseSchema, pausedModelsQuerySchema } from './models';

export interface ApiRoute {
  method: 'get' | 'post';
  /** OpenAPI-style path under /api, e.g. `/runs/{runId}`. */
  path: string;
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** JSON response schema; absent for text downloads (exports). */
  response?: z.ZodType;
  /** Whether the bearer token is always needed (state changes); reads need it unless reads are open. */
  changesState: boolean;
  /** The success status when it is not NestJS's default (200 for GET, 201 for POST). */
  status?: 200 | 201 | 202;
}

/** Every route of the REST API: the orchestrator implements them, the OpenAPI document is generated from them. */
export const apiRoutes: ApiRoute[] = [
  { method: 'get', path: '/health', summary: 'Liveness and queue depths', response: z.object({ status: z.literal('ok'), queues: z.record(z.string(), z.unknown()) }), changesState: false },
  { method: 'get', path: '/datasets', summary: 'Registered dataset versions', response: z.array(datasetVersionSchema), changesState: false },
  { method: 'get', path: '/datasets/{versionId}/items', summary: 'Items of a dataset version', query: datasetItemsQuerySchema, response: datasetItemsPageSchema, changesState: false },
  { method: 'get', path: '/sweeps', summary: 'Sweeps, newest first', query: pageQuerySchema, response: z.array(sweepSummarySchema), changesState: false },
  { method: 'get', path: '/sweeps/{sweepId}', summary: 'A sweep with its config and runs', response: sweepDetailSchema, changesState: false },
  { method: 'get', path: '/runs', summary: 'Runs, newest first', query: listRunsQuerySchema, response: z.array(runSummarySchema), changesState: false },
  { method: 'post', path: '/runs', summary: 'Plan and start a run from a sweep config (or plan only with dryRun)', body: createRunBodySchema, response: createRunResponseSchema, changesState: true },
  { method: 'get', path: '/runs/{runId}', summary: 'Run status: progress per stage, cost so far, time left, leaderboard', response: runDetailSchema, changesState: false },
  { method: 'post', path: '/runs/{runId}/cancel', summary: 'Cancel a running run and take its waiting jobs off the queues', response: cancelRunResponseSchema, changesState: true },
  { method: 'post', path: '/runs/{runId}/resume', summary: 'Re-enqueue whatever a run still needs', response: resumeRunResponseSchema, changesState: true },
  { method: 'post', path: '/runs/{runId}/rerun', summary: 'Start the run\'s sweep again under a new cache namespace (or plan only with dryRun)', body: rerunBodySchema, response: createRunResponseSchema, changesState: true },
  { method: 'get', path: '/runs/{runId}/cost', summary: 'Estimate against spend, per stage kind, and what stage reuse and the response cache saved', response: runCostSchema, changesState: false },
  { method: 'get', path: '/access', summary: 'What the presented token may do (read, write) and why not', response: accessSchema, changesState: false },
  { method: 'get', path: '/runs/{runId}/variants', summary: 'Variants of a run', response: z.array(variantSchema), changesState: false },
  { method: 'get', path: '/runs/{runId}/leaderboard', summary: 'Leaderboard of a run', response: z.array(leaderboardRowSchema), changesState: false },
  { method: 'get', path: '/runs/{runId}/items', summary: 'Item results: filter, sort, page', query: itemResultsQuerySchema, response: itemResultsPageSchema, changesState: false },
  { method: 'get', path: '/runs/{runId}/matrix', summary: 'Items × variants: each cell a verdict category with the predicted SQL; modes all, failures, sql-errors, disagree; paged', query: itemMatrixQuerySchema, response: itemMatrixSchema, changesState: false },
  { method: 'get', path: '/runs/{runId}/items/{itemId}', summary: 'Item drill-down: gold, predictions and every stage', response: itemDetailSchema, changesState: false },
  { method: 'get', path: '/runs/{runId}/variants/{variantId}/items/{itemId}/stages', summary: 'Stage traces of one (variant, item)', response: z.array(stageTraceSchema), changesState: false },
  { method: 'get', path: '/runs/{runId}/variants/{variantId}/items/{itemId}/tables', summary: 'Gold and predicted result tables of one (variant, item), run in the sandbox', response: itemTablesSchema, changesState: false },
  { method: 'get', path: '/runs/{runId}/cost-accuracy', summary: 'Cost against EX per variant, with the Pareto front', response: costAccuracySchema, changesState: false },
  { method: 'get', path: '/runs/{runId}/param-sweep', summary: 'EX against one knob with the others fixed', query: paramSweepQuerySchema, response: paramSweepSchema, changesState: false },
  { method: 'get', path: '/runs/{runId}/export', summary: 'Predictions (spider, bird) or item results (csv, jsonl)', query: exportQuerySchema, changesState: false },
  // Nightly schedules (served by the schedules module); their rows are described loosely here.
  { method: 'get', path: '/schedules', summary: 'Schedules with their next fire time and last run', response: z.array(z.record(z.string(), z.unknown())), changesState: false },
  { method: 'get', path: '/schedules/{name}/runs', summary: 'Runs of one schedule over time with per-variant EX (trends)', query: z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() }), response: z.array(z.record(z.string(), z.unknown())), changesState: false },
  { method: 'get', path: '/schedules/{name}/runs/{runId}/check', summary: 'The regression check of one scheduled run: per variant the flipped items, per changed stage the items whose output changed', response: z.record(z.string(), z.unknown()), changesState: false },
  { method: 'get', path: '/alerts', summary: 'Regression alerts, newest first', query: z.object({ schedule: z.string().optional(), limit: z.coerce.number().int().min(1).max(1000).optional() }), response: z.array(z.record(z.string(), z.unknown())), changesState: false },
  { method: 'get', path: '/models/paused', summary: 'Models paused because their provider said the quota or credit is spent, and why (with runId: those the run uses)', query: pausedModelsQuerySchema, response: z.array(modelPauseSchema), changesState: false },
  { method: 'post', path: '/models/{model}/resume', summary: 'Lift a model\'s quota pause: its waiting jobs go on (404 when it is not paused)', response: modelResumeResponseSchema, changesState: true, status: 200 },
  { method: 'get', path: '/compare', summary: 'Compare two variants or two runs: paired bootstrap, McNemar, flips', query: compareQuerySchema, response: comparisonSchema, changesState: false },
];
