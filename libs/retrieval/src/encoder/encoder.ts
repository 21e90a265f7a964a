import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RetrievalError, type RetrievalErrorCode } from '../errors';
import type { TokenMatrix } from '../token-matrix';
import { WorkerRpc } from '../worker-rpc';
import { spawnModuleWorker } from '@sqlsweep/config';
import { ColbertTokenization, type TextRole } from './colbert-tokenization';
import { readEncoderConfig, type EncoderConfig } from './encoder-config';
import { EncodingCache } from './encoding-cache';
import type { EncoderRequest, EncoderResponse, EncoderWorkerData, EncoderWorkerEvent, ExecutionProviderName } from './encoder-protocol';

export interface EncoderLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface OpenEncoderOptions {
  /** directory with config.json, the ONNX model and tokenizer.json */
  modelDir: string;
  /** onnxruntime threads per inference; keep (processes x threads) <= cores. Default 1. */
  intraOpNumThreads?: number;
  /** texts per onnxruntime run. Default 32. */
  batchSize?: number;
  /** 'cuda' is used when onnxruntime can load it, else CPU (logged). Default 'cpu'. */
  executionProvider?: ExecutionProviderName;
  logger?: EncoderLogger;
  /**
   * Bytes of recent query matrices and pooled vectors kept by text (default 32 MiB; 0: none). Stages of different
   * methods encode the same question, and the same masked training questions, again in one worker; document matrices
   * (index builds, on disk already) are not kept.
   */
  cacheBytes?: number;
}

/** A running encoder: inference happens in its own worker thread; these calls only post messages. */
export interface Encoder {
  readonly config: EncoderConfig;
  /** hash of the model, tokenizer and config: part of every index key built with this encoder */
  readonly fingerprint: string;
  readonly dim: number;
  readonly provider: ExecutionProviderName;
  encodeQueries(texts: string[]): Promise<TokenMatrix[]>;
  encodeDocuments(texts: string[]): Promise<TokenMatrix[]>;
  /** one L2-normalised vector per text (sentence-similarity use) */
  encodePooled(texts: string[], role?: TextRole): Promise<Float32Array[]>;
  /** Texts of `encodeQueries` and `encodePooled` calls answered from the cache of recent encodings, and not, so far. */
  readonly cacheStats: { hits: number; misses: number };
  /** word-piece count without special tokens (the 512-token rule, RAG chunking) */
  countTokens(text: string): number;
  pieces(text: string): string[];
  close(): Promise<void>;
}

export function encoderFingerprint(modelDir: string, config: EncoderConfig): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(modelDir, config.modelFile)));
  hash.update(readFileSync(join(modelDir, config.tokenizerFile)));
  if (config.projectionFile) hash.update(readFileSync(join(modelDir, config.projectionFile)));
  const { builder: _builder, ...rest } = config;
  hash.update(JSON.stringify(rest));
  return hash.digest('hex');
}

export async function openEncoder(options: OpenEncoderOptions): Promise<Encoder> {
  const config = readEncoderConfig(options.modelDir);
  const tokenization = new ColbertTokenization(options.modelDir, config);
  const fingerprint = encoderFingerprint(options.modelDir, config);
  const worker = spawnModuleWorker(__dirname, 'encoder-worker', {
    modelDir: options.modelDir,
    intraOpNumThreads: options.intraOpNumThreads ?? 1,
    batchSize: options.batchSize ?? 32,
    executionProvider: options.executionProvider ?? 'cpu',
  } satisfies EncoderWorkerData);

  const ready = await new Promise<EncoderWorkerEvent>((resolve, reject) => {
    const onMessage = (message: EncoderWorkerEvent) => {
      worker.off('error', reject);
      worker.off('message', onMessage);
      resolve(message);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
  if (ready.event === 'failed') {
    await worker.terminate();
    throw new RetrievalError(ready.code as RetrievalErrorCode, ready.message);
  }
  if (ready.fallbackReason) options.logger?.warn({ encoder: config.name, reason: ready.fallbackReason }, 'encoder running on CPU');
  options.logger?.info({ encoder: config.name, provider: ready.provider, modelDir: options.modelDir }, 'encoder ready');

  const rpc = new WorkerRpc<EncoderRequest, EncoderResponse>(worker, {
    failed: (response) => new RetrievalError(response.code as RetrievalErrorCode, response.message),
    crashed: (error) => new RetrievalError('ENCODER_INFERENCE_FAILED', `encoder worker crashed: ${error.message}`),
    exited: (code) => new RetrievalError('ENCODER_CLOSED', `encoder worker exited (code ${code})`),
    closed: () => new RetrievalError('ENCODER_CLOSED', `encoder ${config.name} is closed`),
  });

  const request = (role: TextRole, texts: string[], pooled: boolean) => {
    if (texts.length === 0 && !rpc.isClosed) return Promise.resolve({ id: 0, ok: true as const, data: new Float32Array(0), rows: [] as number[] });
    return rpc.send({ op: 'encode', role, texts, pooled });
  };
  const toMatrices = (response: { data: Float32Array; rows: number[] }): TokenMatrix[] => {
    let offset = 0;
    return response.rows.map((rows) => {
      const data = response.data.subarray(offset, offset + rows * config.dim);
      offset += rows * config.dim;
      return { rows, dim: config.dim, data };
    });
  };
  const cache = new EncodingCache(options.cacheBytes ?? 32 * 1024 * 1024);
  /** Encodes the texts not in the cache (each once), and keeps them. A closed encoder refuses even what it kept. */
  const encodeCached = async (role: TextRole, texts: string[], pooled: boolean): Promise<TokenMatrix[]> => {
    const key = (text: string) => `${role}\u0000${pooled ? 'pooled' : 'tokens'}\u0000${text}`;
    const found = rpc.isClosed ? [] : texts.map((t) => cache.get(key(t)));
    const missing = [...new Set(texts.filter((_, i) => !found[i]))];
    if (missing.length === 0 && texts.length > 0) return found as TokenMatrix[];
    const fresh = toMatrices(await request(role, missing, pooled));
    const byText = new Map(missing.map((t, i) => [t, fresh[i]!]));
    for (const [t, m] of byText) cache.set(key(t), m);
    // A text asked for twice in one call gets its own copy the second time, as it would from the cache.
    return texts.map((t, i) => {
      if (found[i]) return found[i]!;
      const m = byText.get(t)!;
      byText.set(t, { ...m, data: m.data.slice() });
      return m;
    });
  };

  return {
    config,
    fingerprint,
    dim: config.dim,
    provider: ready.provider,
    encodeQueries: (texts) => encodeCached('query', texts, false),
    encodeDocuments: async (texts) => toMatrices(await request('document', texts, false)),
    encodePooled: async (texts, role = 'document') => (await encodeCached(role, texts, true)).map((m) => m.data),
    get cacheStats() {
      return { hits: cache.hits, misses: cache.misses };
    },
    countTokens: (text) => tokenization.countTokens(text),
    pieces: (text) => tokenization.pieces(text),
    close: () => rpc.close(),
  };
}
