import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { encoderConfigSchema, type EncoderConfigInput } from '../encoder-config';
import { BUNDLED_OUTPUT_NAME, buildLateInteractionModel } from './onnx-graph';
import { buildTokenizerConfigJson, buildTokenizerJson } from './tokenizer-json';
import { buildEmbeddingTable, orthogonalProjection } from './token-embeddings';
import { buildBundledVocabulary } from './vocabulary';

/** Bump whenever the vocabulary, the embeddings or the graph change: every index built with it is then rebuilt. */
export const BUNDLED_ENCODER_VERSION = 2;
export const BUNDLED_ENCODER_NAME = 'sqlsweep-ngram-colbert';
const HIDDEN_DIM = 128;
const OUTPUT_DIM = 128;
const CONTEXT_KERNEL = [0.3, 1, 0.3] as const;

export interface BuildBundledEncoderOptions {
  /** target directory, e.g. `.sqlsweep/models/sqlsweep-ngram-colbert` */
  dir: string;
}

export interface BuildBundledEncoderResult {
  dir: string;
  /** false when an up-to-date build was already there */
  built: boolean;
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

function isUpToDate(dir: string): boolean {
  try {
    const config = encoderConfigSchema.parse(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')));
    return (
      config.builder?.name === BUNDLED_ENCODER_NAME &&
      config.builder.version === BUNDLED_ENCODER_VERSION &&
      sha256(readFileSync(join(dir, config.modelFile))) === config.builder.modelSha256 &&
      sha256(readFileSync(join(dir, config.tokenizerFile))) === config.builder.tokenizerSha256
    );
  } catch {
    return false;
  }
}

/**
 * Builds the bundled late-interaction encoder (model.onnx, tokenizer.json, tokenizer_config.json, config.json)
 * from this code alone. Deterministic (same bytes on every run), idempotent (an up-to-date directory is left
 * alone) and safe to run concurrently (files are written to a private directory, then renamed into place).
 */
export function buildBundledEncoder(options: BuildBundledEncoderOptions): BuildBundledEncoderResult {
  const { dir } = options;
  if (isUpToDate(dir)) return { dir, built: false };

  const vocabulary = buildBundledVocabulary();
  const model = buildLateInteractionModel({
    vocabularySize: vocabulary.length,
    hiddenDim: HIDDEN_DIM,
    outputDim: OUTPUT_DIM,
    embeddings: buildEmbeddingTable(vocabulary, HIDDEN_DIM),
    contextKernel: CONTEXT_KERNEL,
    projection: orthogonalProjection(HIDDEN_DIM, OUTPUT_DIM, 'projection'),
  });
  const tokenizer = JSON.stringify(buildTokenizerJson(vocabulary, 512));
  const config: EncoderConfigInput = {
    name: BUNDLED_ENCODER_NAME,
    kind: 'late-interaction',
    modelFile: 'model.onnx',
    tokenizerFile: 'tokenizer.json',
    tokenizerConfigFile: 'tokenizer_config.json',
    outputName: BUNDLED_OUTPUT_NAME,
    outputDim: OUTPUT_DIM,
    dim: OUTPUT_DIM,
    queryMaxLength: 32,
    documentMaxLength: 512,
    queryMarker: '[unused0]',
    documentMarker: '[unused1]',
    queryPadToken: '[MASK]',
    attendToMaskTokens: false,
    normalize: true,
    pooling: 'mean',
    builder: { name: BUNDLED_ENCODER_NAME, version: BUNDLED_ENCODER_VERSION, modelSha256: sha256(model), tokenizerSha256: sha256(tokenizer) },
  };

  mkdirSync(dirname(dir), { recursive: true });
  const staging = `${dir}.staging-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(staging);
  try {
    writeFileSync(join(staging, 'model.onnx'), model);
    writeFileSync(join(staging, 'tokenizer.json'), tokenizer);
    writeFileSync(join(staging, 'tokenizer_config.json'), JSON.stringify(buildTokenizerConfigJson(512), null, 2));
    writeFileSync(join(staging, 'config.json'), JSON.stringify(config, null, 2));
    if (isUpToDate(dir)) return { dir, built: false }; // a concurrent builder finished first
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!isUpToDate(dir)) throw error;
      return { dir, built: false };
    }
    return { dir, built: true };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
