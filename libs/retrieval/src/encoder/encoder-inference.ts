import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { RetrievalError } from '../errors';
import { ColbertTokenization, type TextRole, type TokenizedText } from './colbert-tokenization';
import type { EncoderConfig } from './encoder-config';
import { buildProjectionModel } from './projection-graph';
import type { EncoderWorkerData, ExecutionProviderName } from './encoder-protocol';

export interface EncodedBatch {
  /** concatenated rows of every text, in input order */
  data: Float32Array;
  /** rows per text */
  rows: number[];
}

/**
 * Synchronous-looking inference over onnxruntime: tokenize, pad to the batch's longest text, run, cut each text's
 * rows back out, apply the optional projection, normalise, pool. Runs inside the encoder worker thread only.
 */
export class EncoderInference {
  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly config: EncoderConfig,
    private readonly tokenization: ColbertTokenization,
    /** a separately shipped projection (projectionFile), run as its own small onnxruntime session */
    private readonly projection: ort.InferenceSession | null,
    private readonly batchSize: number,
    readonly provider: ExecutionProviderName,
    readonly fallbackReason: string | undefined,
  ) {}

  static async open(data: EncoderWorkerData, config: EncoderConfig): Promise<EncoderInference> {
    const modelPath = join(data.modelDir, config.modelFile);
    if (!existsSync(modelPath)) throw new RetrievalError('ENCODER_MODEL_MISSING', `${modelPath} does not exist`);
    const tokenization = new ColbertTokenization(data.modelDir, config);
    let projection: ort.InferenceSession | null = null;
    if (config.projectionFile) {
      const bytes = readFileSync(join(data.modelDir, config.projectionFile));
      const weights = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      if (weights.length !== config.outputDim * config.dim) {
        throw new RetrievalError('ENCODER_CONFIG_INVALID', `${join(data.modelDir, config.projectionFile)}: expected ${config.outputDim}x${config.dim} float32, found ${weights.length} floats`);
      }
      projection = await ort.InferenceSession.create(buildProjectionModel(weights, config.outputDim, config.dim), {
        intraOpNumThreads: data.intraOpNumThreads,
        interOpNumThreads: 1,
        executionProviders: ['cpu'],
      });
    }
    const base: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: data.intraOpNumThreads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    };
    let session: ort.InferenceSession;
    let provider: ExecutionProviderName = 'cpu';
    let fallbackReason: string | undefined;
    if (data.executionProvider === 'cuda') {
      try {
        session = await ort.InferenceSession.create(modelPath, { ...base, executionProviders: ['cuda'] });
        provider = 'cuda';
      } catch (error) {
        fallbackReason = `CUDA execution provider unavailable: ${(error as Error).message}`;
        session = await ort.InferenceSession.create(modelPath, { ...base, executionProviders: ['cpu'] });
      }
    } else {
      session = await ort.InferenceSession.create(modelPath, { ...base, executionProviders: ['cpu'] });
    }
    const missing = [config.inputNames.inputIds, config.inputNames.attentionMask].filter((name) => !session.inputNames.includes(name));
    if (missing.length > 0 || !session.outputNames.includes(config.outputName)) {
      throw new RetrievalError(
        'ENCODER_CONFIG_INVALID',
        `${modelPath}: model inputs [${session.inputNames.join(', ')}] outputs [${session.outputNames.join(', ')}] do not match config.json (missing inputs [${missing.join(', ')}], output ${config.outputName})`,
      );
    }
    return new EncoderInference(session, config, tokenization, projection, data.batchSize, provider, fallbackReason);
  }

  async encode(texts: string[], role: TextRole, pooled: boolean): Promise<EncodedBatch> {
    const tokenized = texts.map((text) => this.tokenization.tokenize(text, role));
    // Sort by length so each batch pads little; results are put back in input order.
    const order = tokenized.map((_, i) => i).sort((a, b) => tokenized[a].ids.length - tokenized[b].ids.length);
    const perText: Float32Array[] = new Array(texts.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const batchIndices = order.slice(start, start + this.batchSize);
      const outputs = await this.runBatch(batchIndices.map((i) => tokenized[i]), role);
      batchIndices.forEach((textIndex, b) => (perText[textIndex] = pooled ? this.pool(outputs[b]) : outputs[b]));
    }
    const dim = this.config.dim;
    const rows = perText.map((m) => m.length / dim);
    const data = new Float32Array(perText.reduce((sum, m) => sum + m.length, 0));
    let offset = 0;
    for (const matrix of perText) {
      data.set(matrix, offset);
      offset += matrix.length;
    }
    return { data, rows };
  }

  private async runBatch(batch: TokenizedText[], role: TextRole): Promise<Float32Array[]> {
    const length = Math.max(...batch.map((t) => t.ids.length));
    const ids = new BigInt64Array(batch.length * length);
    const mask = new BigInt64Array(batch.length * length);
    batch.forEach((t, b) => {
      for (let i = 0; i < t.ids.length; i++) {
        ids[b * length + i] = BigInt(t.ids[i]);
        mask[b * length + i] = BigInt(t.attentionMask[i]);
      }
    });
    const feeds: Record<string, ort.Tensor> = {
      [this.config.inputNames.inputIds]: new ort.Tensor('int64', ids, [batch.length, length]),
      [this.config.inputNames.attentionMask]: new ort.Tensor('int64', mask, [batch.length, length]),
    };
    if (this.config.inputNames.tokenTypeIds) {
      feeds[this.config.inputNames.tokenTypeIds] = new ort.Tensor('int64', new BigInt64Array(batch.length * length), [batch.length, length]);
    }
    let output: ort.Tensor;
    try {
      output = (await this.session.run(feeds))[this.config.outputName];
    } catch (error) {
      throw new RetrievalError('ENCODER_INFERENCE_FAILED', `${this.config.name}: ${(error as Error).message}`);
    }
    const values = output.data as Float32Array;
    const width = this.config.outputDim;
    if (output.dims.length === 2) {
      // A pooled sentence encoder: one vector per text.
      return this.finishAll(batch.map((_, b) => ({ raw: values.subarray(b * width, (b + 1) * width), rows: 1 })));
    }
    if (output.dims[2] !== width) {
      throw new RetrievalError('ENCODER_CONFIG_INVALID', `${this.config.name}: model output width ${output.dims[2]} differs from config outputDim ${width}`);
    }
    return this.finishAll(
      batch.map((t, b) => {
        // Queries keep every position (ColBERT query augmentation); documents keep attended tokens only.
        const keep = role === 'query' ? t.ids.length : t.attentionMask.reduce((s, m) => s + m, 0);
        const start = b * length * width;
        return { raw: values.subarray(start, start + keep * width), rows: keep };
      }),
    );
  }

  /** One text at a time: runs of the projection session are not issued concurrently. */
  private async finishAll(texts: { raw: Float32Array; rows: number }[]): Promise<Float32Array[]> {
    const finished: Float32Array[] = [];
    for (const { raw, rows } of texts) finished.push(await this.finishRows(raw, rows));
    return finished;
  }

  private async finishRows(raw: Float32Array, rows: number): Promise<Float32Array> {
    const dim = this.config.dim;
    const width = this.config.outputDim;
    let result: Float32Array;
    if (this.projection && rows > 0) {
      const out = await this.projection.run({ rows: new ort.Tensor('float32', Float32Array.from(raw.subarray(0, rows * width)), [rows, width]) });
      result = Float32Array.from(out.projected.data as Float32Array);
    } else if (this.projection) {
      result = new Float32Array(0);
    } else {
      result = Float32Array.from(raw);
    }
    if (this.config.normalize) normaliseRows(result, rows, dim);
    return result;
  }

  private pool(matrix: Float32Array): Float32Array {
    const dim = this.config.dim;
    const rows = matrix.length / dim;
    if (rows === 1) return matrix;
    const pooled = new Float32Array(dim);
    if (this.config.pooling === 'cls') {
      pooled.set(matrix.subarray(0, dim));
    } else {
      for (let r = 0; r < rows; r++) for (let j = 0; j < dim; j++) pooled[j] += matrix[r * dim + j];
    }
    normaliseRows(pooled, 1, dim);
    return pooled;
  }
}

function normaliseRows(data: Float32Array, rows: number, dim: number): void {
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) norm += data[r * dim + j] ** 2;
    if (norm === 0) continue;
    const scale = 1 / Math.sqrt(norm);
    for (let j = 0; j < dim; j++) data[r * dim + j] *= scale;
  }
}
