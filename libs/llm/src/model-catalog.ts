import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { LlmError } from './errors';

const providerSchema = z
  .object({
    kind: z.enum(['openai', 'openai-compatible', 'anthropic']),
    /** Name of the environment variable holding the API key. Keys never live in config files. */
    apiKeyEnv: z.string().min(1).optional(),
    baseUrl: z.string().url().optional(),
    /** Name of the environment variable holding the base URL (e.g. the simulator's address). */
    baseUrlEnv: z.string().min(1).optional(),
    /** True for the simulator: every response is marked `simulated`. */
    simulated: z.boolean().default(false),
    timeoutMs: z.number().int().positive().default(120_000),
  })
  .strict();

/**
 * Limits as the provider counts them. `tpm` alone: one token limit charged prompt + max_tokens at admission
 * (OpenAI, most OpenAI-compatible servers). `inputTpm` and `outputTpm`: input charged at admission, output as it is
 * produced (Anthropic's ITPM/OTPM). The provider's rate-limit headers lower a declared limit that is too high.
 */
const limitsSchema = z
  .object({
    rpm: z.number().positive(),
    tpm: z.number().positive().optional(),
    inputTpm: z.number().positive().optional(),
    outputTpm: z.number().positive().optional(),
    concurrency: z.number().int().positive(),
    /** Whether prompt-cache reads count against the token limit (Anthropic: not for most current models). */
    cacheReadsCount: z.boolean().default(true),
  })
  .strict()
  .superRefine((l, ctx) => {
    const split = l.inputTpm !== undefined || l.outputTpm !== undefined;
    if (l.tpm !== undefined && split) {
      ctx.addIssue({ code: 'custom', message: 'declare either tpm (one limit on prompt + max_tokens) or inputTpm and outputTpm, not both' });
    } else if (l.tpm === undefined && (l.inputTpm === undefined || l.outputTpm === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'declare tpm (one limit on prompt + max_tokens), or both inputTpm and outputTpm' });
    }
  });

const modelSchema = z
  .object({
    provider: z.string().min(1),
    /** Model name sent to the provider, when it differs from the catalog key. */
    apiModel: z.string().min(1).optional(),
    pricing: z
      .object({
        inputPerMTok: z.number().nonnegative(),
        cachedInputPerMTok: z.number().nonnegative(),
        outputPerMTok: z.number().nonnegative(),
        /** Price of prompt tokens written to the cache (Anthropic: 1.25 x input); defaults to the input price. */
        cacheWritePerMTok: z.number().nonnegative().optional(),
        /** Share of the price charged for batch API calls (OpenAI and Anthropic both charge half). */
        batchFactor: z.number().min(0).max(1).default(0.5),
      })
      .strict(),
    contextWindow: z.number().int().positive(),
    /** Output tokens reserved from the budget when a request sets no maxTokens. */
    defaultMaxTokens: z.number().int().positive().default(1024),
    tokenizer: z.enum(['o200k_base', 'cl100k_base']).default('o200k_base'),
    limits: limitsSchema,
  })
  .strict();

const catalogSchema = z
  .object({
    providers: z.record(z.string(), providerSchema),
    models: z.record(z.string(), modelSchema),
  })
  .strict();

export type ProviderConfig = z.infer<typeof providerSchema>;
export type ModelLimits = z.infer<typeof limitsSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type ModelCatalog = z.infer<typeof catalogSchema>;

/** Parses a catalog object; `source` names the file in error messages. */
export function parseModelCatalog(raw: unknown, source: string): ModelCatalog {
  const result = catalogSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new LlmError('config', `${source}: invalid model catalog:\n  ${problems.join('\n  ')}`);
  }
  const catalog = result.data;
  const unknown = Object.entries(catalog.models)
    .filter(([, m]) => !(m.provider in catalog.providers))
    .map(([name, m]) => `models.${name}.provider: unknown provider "${m.provider}"`);
  const accounting = Object.entries(catalog.models).flatMap(([name, m]) => {
    const kind = catalog.providers[m.provider]?.kind;
    if (kind === 'openai' && m.limits.tpm === undefined) return [`models.${name}.limits: OpenAI counts one TPM (prompt + max_tokens): declare tpm, not inputTpm/outputTpm`];
    if (kind === 'anthropic' && m.limits.tpm !== undefined) return [`models.${name}.limits: Anthropic counts input (ITPM) and output (OTPM) apart: declare inputTpm and outputTpm, not tpm`];
    return [];
  });
  const noUrl = Object.entries(catalog.providers)
    .filter(([, p]) => p.kind === 'openai-compatible' && !p.baseUrl && !p.baseUrlEnv)
    .map(([name]) => `providers.${name}: an openai-compatible provider needs baseUrl or baseUrlEnv`);
  if (unknown.length + noUrl.length + accounting.length > 0) {
    throw new LlmError('config', `${source}: invalid model catalog:\n  ${[...unknown, ...accounting, ...noUrl].join('\n  ')}`);
  }
  return catalog;
}

export function loadModelCatalog(file: string): ModelCatalog {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new LlmError('config', `${file}: cannot read model catalog (${(err as Error).message})`, { cause: err });
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new LlmError('config', `${file}: YAML syntax error: ${(err as Error).message}`, { cause: err });
  }
  return parseModelCatalog(raw, file);
}
