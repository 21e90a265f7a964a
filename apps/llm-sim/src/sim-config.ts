import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { answerWeightsSchema } from './answer-model';

const simModelSchema = z
  .object({
    /** How the probability of answering with the gold follows from what the prompt gives (issue 19). */
    weights: answerWeightsSchema.optional(),
    /**
     * Test models only: a fixed probability of the gold whatever the prompt says (no `weights`). Either way one common
     * draw per (seed, model, question, sample) decides.
     */
    accuracy: z.number().min(0).max(1).optional(),
    rpm: z.number().positive().default(10_000),
    /** Input tokens per minute. */
    tpm: z.number().positive().default(10_000_000),
    outputTpm: z.number().positive().default(10_000_000),
    /** Seconds of limit a model may spend at once (token-bucket capacity); providers use 60. */
    burstSeconds: z.number().positive().default(60),
    /**
     * How limits are counted. `token-bucket` (Anthropic's way): input tokens against `tpm` at admission, output tokens
     * against `outputTpm` as produced, buckets refilled continuously. `openai`: prompt + `max_tokens` charged at
     * admission against the single `tpm`, in a rolling window of `windowSeconds` (limits scaled to it), never refunded.
     */
    accounting: z.enum(['token-bucket', 'openai']).default('token-bucket'),
    /** The rolling window of the `openai` accounting; 60 like OpenAI's, shorter in tests. */
    windowSeconds: z.number().positive().default(60),
    latencyMs: z
      .object({ median: z.number().nonnegative(), p95: z.number().nonnegative(), perOutputToken: z.number().nonnegative().default(0) })
      .strict()
      .default({ median: 0, p95: 0, perOutputToken: 0 }),
    /** Share of requests answered with a 500. */
    serverErrorRate: z.number().min(0).max(1).default(0),
    /** Share of requests whose connection is dropped without a response. */
    dropRate: z.number().min(0).max(1).default(0),
    /** Every request fails as a provider does when the account has no credit left. */
    quotaExhausted: z.boolean().default(false),
    /**
     * Rate-limit 429s (code `rate_limit_exceeded`) end with OpenAI's free-tier sentence about adding a payment method
     * at /account/billing, as OpenAI's do for accounts without one: a client must still read them as rate limits.
     */
    billingSentenceOn429: z.boolean().default(false),
    /**
     * false: answers and 429s carry no x-ratelimit-* / anthropic-ratelimit-* headers (a 429 keeps its retry-after), as
     * some OpenAI-compatible servers and proxies answer; a client then learns the limits only from its 429s.
     */
    rateLimitHeaders: z.boolean().default(true),
    /**
     * Stage protocols (as detected from the prompt: `sql`, `explanation`, `method:dr-chain.simplify`, ...) answered
     * with a 400, as a provider answers a prompt over the context length or caught by a content filter.
     */
    badRequestProtocols: z.array(z.string().min(1)).default([]),
  })
  .strict()
  .refine((m) => (m.weights === undefined) !== (m.accuracy === undefined), {
    message: 'give either weights (the answer model) or accuracy (a fixed probability, for test models), not both or neither',
  });

const simConfigSchema = z.object({ models: z.record(z.string(), simModelSchema) }).strict();

export type SimModelConfig = z.infer<typeof simModelSchema>;
export type SimConfig = z.infer<typeof simConfigSchema>;

/** The repository's simulator config (configs/llm-sim.yaml): the models and answer weights a run without --config gets. */
export const DEFAULT_SIM_CONFIG_FILE = join(__dirname, '..', '..', '..', 'configs', 'llm-sim.yaml');

export function parseSimConfig(raw: unknown, source: string): SimConfig {
  const result = simConfigSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`${source}: invalid simulator config:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}

export function loadSimConfig(file: string): SimConfig {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: cannot read simulator config: ${(err as Error).message}`);
  }
  return parseSimConfig(raw, file);
}
