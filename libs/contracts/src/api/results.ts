import { z } from 'zod';
import { pageSchema } from './common';
import { verdictCategorySchema } from './verdict';

/** Columns item results can be sorted by (an allow-list: anything else is a 400). */
export const itemSortColumns = ['item_id', 'variant', 'correct', 'difficulty', 'cost_usd', 'latency_ms', 'input_tokens', 'output_tokens'] as const;

const booleanParam = z.enum(['true', 'false']).transform((v) => v === 'true');

export const itemResultsQuerySchema = z.object({
  variantId: z.string().uuid().optional(),
  correct: booleanParam.optional(),
  errored: booleanParam.optional(),
  /** Only items whose final answer held no SQL (`true`), or only the others (`false`). */
  parseFailed: booleanParam.optional(),
  /** Only items of this verdict category. */
  category: verdictCategorySchema.optional(),
  difficulty: z.string().min(1).optional(),
  dbId: z.string().min(1).optional(),
  /** Case-insensitive substring of the question or the item id. */
  q: z.string().min(1).max(200).optional(),
  sort: z.enum(itemSortColumns).default('item_id'),
  order: z.enum(['asc', 'desc']).default('asc'),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
}).strict();
export type ItemResultsQuery = z.output<typeof itemResultsQuerySchema>;

export const itemResultSchema = z.object({
  runId: z.string().uuid(),
  variantId: z.string().uuid(),
  variantLabel: z.string(),
  itemId: z.string(),
  dbId: z.string(),
  question: z.string(),
  difficulty: z.string().nullable(),
  correct: z.boolean(),
  errored: z.boolean(),
  reason: z.string(),
  predictedSql: z.string().nullable(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number(),
  latencyMs: z.number(),
  simulated: z.boolean(),
  /** Stage metrics of this item (copied from its stage outputs' `metrics`). */
  metrics: z.record(z.string(), z.unknown()),
  /** The named scorer of the verdict, `name@version` (`bird-ex@2`); null when the item's stages failed before scoring. */
  scorer: z.string().nullable(),
  /**
   * The verdict is a parse failure: the method's final answer held no SQL. `correct` and `errored` are false (EX
   * counts it as not correct), and it is counted apart from a wrong SQL.
   */
  parseFailed: z.boolean(),
  /** correct, wrong result, SQL that failed to execute, no SQL, or pipeline error: each counted apart (see verdictCategories). */
  category: verdictCategorySchema,
}).meta({ id: 'ItemResult' });
export type ItemResultDto = z.infer<typeof itemResultSchema>;
export const itemResultsPageSchema = pageSchema(itemResultSchema).meta({ id: 'ItemResultsPage' });

/**
 * Why a simulated model answered as it did: the prompt features llm-sim read and the probability of a correct answer
 * it drew against (see README, "The simulator"). Features are named values (numbers, booleans, the item's hardness).
 */
export const simulationReportSchema = z.object({
  probability: z.number().min(0).max(1),
  features: z.record(z.string(), z.union([z.number(), z.boolean(), z.string(), z.null()])),
}).meta({ id: 'SimulationReport' });
export type SimulationReportDto = z.infer<typeof simulationReportSchema>;

/** A stage of one (variant, item): what went in and out. `trace` holds prompt/response for LLM stages. */
export const stageTraceSchema = z.object({
  stage: z.string(),
  stageKey: z.string(),
  role: z.string(),
  /** `skipped`: an LLM stage that passed through without a call (a correction round after the chain stopped). */
  status: z.enum(['done', 'skipped', 'failed', 'pending']),
  output: z.unknown(),
  prompt: z.unknown().nullable(),
  response: z.string().nullable(),
  error: z.string().nullable(),
  /** For SQL stages: the sandbox's verdict (ok / error / timeout, with row count or message). */
  sandbox: z.object({ status: z.string(), rows: z.number().int().optional(), message: z.string().optional() }).nullable(),
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number(),
  latencyMs: z.number(),
  simulated: z.boolean(),
  /** For an LLM stage answered by the simulator: its features and probability; null otherwise (or for older runs). */
  simulation: simulationReportSchema.nullable(),
  createdAt: z.string().nullable(),
  /**
   * Who paid `costUsd`: `paid` this run's own call, `cache` an answer this run took from the response cache (it paid
   * nothing; costUsd is what the call cost), `reused` a result stored by another run; null while there is no result.
   */
  costSource: z.enum(['paid', 'cache', 'reused']).nullable(),
}).meta({ id: 'StageTrace' });
export type StageTraceDto = z.infer<typeof stageTraceSchema>;

/** Item drill-down: the item, its gold SQL and, per variant, the result and every stage. */
export const itemDetailSchema = z.object({
  runId: z.string().uuid(),
  itemId: z.string(),
  dbId: z.string(),
  question: z.string(),
  evidence: z.string().nullable(),
  goldSql: z.string(),
  difficulty: z.string().nullable(),
  variants: z.array(z.object({
    variantId: z.string().uuid(),
    label: z.string(),
    result: itemResultSchema.nullable(),
    stages: z.array(stageTraceSchema),
  })),
  simulated: z.boolean(),
}).meta({ id: 'ItemDetail' });
export type ItemDetailDto = z.infer<typeof itemDetailSchema>;

/** A query's result as the sandbox returned it (read-only replica, deadline, row cap); cells as JSON scalars. */
export const resultTableSchema = z.object({
  sql: z.string().nullable(),
  status: z.enum(['ok', 'error', 'timeout', 'missing']),
  columns: z.array(z.string()),
  /** At most the first `rowLimit` rows; integers beyond 2^53 and blobs are shown as strings. */
  rows: z.array(z.array(z.union([z.string(), z.number(), z.null()]))),
  rowCount: z.number().int(),
  truncated: z.boolean(),
  message: z.string().nullable(),
  elapsedMs: z.number(),
}).meta({ id: 'ResultTable' });
export type ResultTableDto = z.infer<typeof resultTableSchema>;

/** Gold and predicted result tables of one (variant, item), executed on request the way the evaluator ran them. */
export const itemTablesSchema = z.object({
  runId: z.string().uuid(), variantId: z.string().uuid(), itemId: z.string(), dbId: z.string(),
  gold: resultTableSchema, predicted: resultTableSchema, rowLimit: z.number().int(), simulated: z.boolean(),
}).meta({ id: 'ItemTables' });
export type ItemTablesDto = z.infer<typeof itemTablesSchema>;
