import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { RetrievalError } from '../errors';

/**
 * `config.json` beside `model.onnx` and `tokenizer.json`. The bundled encoder and a user's own ColBERT or sentence
 * encoder export are described by the same file and loaded by the same code path.
 */
export const encoderConfigSchema = z.object({
  name: z.string().min(1),
  /** late-interaction: one vector per token (ColBERT); pooled: one vector per text (sentence encoder) */
  kind: z.enum(['late-interaction', 'pooled']),
  modelFile: z.string().default('model.onnx'),
  tokenizerFile: z.string().default('tokenizer.json'),
  tokenizerConfigFile: z.string().optional(),
  inputNames: z
    .object({
      inputIds: z.string().default('input_ids'),
      attentionMask: z.string().default('attention_mask'),
      /** set when the export expects token_type_ids (BERT exports usually do); zeros are fed */
      tokenTypeIds: z.string().optional(),
    })
    .default({ inputIds: 'input_ids', attentionMask: 'attention_mask' }),
  outputName: z.string().default('last_hidden_state'),
  /** width of the model output (before the optional projection) */
  outputDim: z.number().int().positive(),
  /** optional linear projection applied after the model: raw little-endian float32 [outputDim, dim] */
  projectionFile: z.string().optional(),
  /** width of the final vectors */
  dim: z.number().int().positive(),
  queryMaxLength: z.number().int().positive().default(32),
  documentMaxLength: z.number().int().positive().default(512),
  /** ColBERT markers inserted after [CLS]; null for models trained without them */
  queryMarker: z.string().nullable().default('[unused0]'),
  documentMarker: z.string().nullable().default('[unused1]'),
  /** queries are padded with this token up to queryMaxLength (ColBERT query augmentation); null disables padding */
  queryPadToken: z.string().nullable().default('[MASK]'),
  attendToMaskTokens: z.boolean().default(false),
  normalize: z.boolean().default(true),
  pooling: z.enum(['mean', 'cls']).default('mean'),
  /** set by the bundled builder: lets a re-run skip an up-to-date build */
  builder: z
    .object({ name: z.string(), version: z.number().int(), modelSha256: z.string(), tokenizerSha256: z.string() })
    .optional(),
});

export type EncoderConfig = z.infer<typeof encoderConfigSchema>;
export type EncoderConfigInput = z.input<typeof encoderConfigSchema>;

export function readEncoderConfig(modelDir: string): EncoderConfig {
  const path = join(modelDir, 'config.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new RetrievalError('ENCODER_MODEL_MISSING', `${path}: cannot read encoder config (${(error as Error).message})`);
  }
  const parsed = encoderConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new RetrievalError('ENCODER_CONFIG_INVALID', `${path}: ${problems.join('; ')}`);
  }
  if (!parsed.data.projectionFile && parsed.data.outputDim !== parsed.data.dim) {
    throw new RetrievalError('ENCODER_CONFIG_INVALID', `${path}: dim ${parsed.data.dim} differs from outputDim ${parsed.data.outputDim} but no projectionFile is given`);
  }
  return parsed.data;
}
