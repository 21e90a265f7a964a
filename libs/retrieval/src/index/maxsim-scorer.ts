import type { Worker } from 'node:worker_threads';
import { RetrievalError } from '../errors';
import { nonZeroRows, type TokenMatrix } from '../token-matrix';
import { WorkerRpc } from '../worker-rpc';
import { spawnModuleWorker } from '@sqlsweep/config';
import type { MaxSimBucket, MaxSimRequest, MaxSimResponse } from './maxsim-protocol';

export interface MaxSimScorerOptions {
  /** onnxruntime threads for scoring (default 1) */
  intraOpNumThreads?: number;
  /** documents per padded bucket (default 256); documents are sorted by length first so padding stays small */
  bucketSize?: number;
}

/** A corpus registered with the scorer: a padded copy of its vectors lives in the scorer thread. */
export interface RegisteredCorpus {
  /** MaxSim of the query against every document, in registration order */
  score(query: TokenMatrix): Promise<Float32Array>;
  release(): Promise<void>;
}

/** Exact MaxSim on onnxruntime's MatMul in a worker thread: for corpora where scalar JS is too slow. */
export interface MaxSimScorer {
  /**
   * `documents` and their `data` must not change until the returned promise settles: their buckets are built across
   * turns of the event loop.
   */
  register(dim: number, documents: ScorerInput): Promise<RegisteredCorpus>;
  close(): Promise<void>;
}

const PAD_BIAS = -1e9;

/** The documents a corpus registers: each one's token rows, `rows` x dim floats from the start of `data`. */
export type ScorerInput = readonly { data: Float32Array; rows: number }[];

/**
 * The padded buckets the scorer thread scores, built one at a time with a yield to the event loop after each: R3's
 * corpus fills 200 MB of them, which held a worker's other jobs for most of a second when copied in one go.
 */
async function buildBuckets(dim: number, documents: ScorerInput, bucketSize: number): Promise<MaxSimBucket[]> {
  const buckets: MaxSimBucket[] = [];
  for (const members of bucketMembers(documents, bucketSize)) {
    buckets.push(fillBucket(dim, documents, members));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return buckets;
}

/** The documents of each bucket, shortest first. Documents without rows score 0 (as in the scalar kernel) and are left out. */
function bucketMembers(documents: ScorerInput, bucketSize: number): number[][] {
  const order = documents.map((_, i) => i).filter((i) => documents[i].rows > 0).sort((a, b) => documents[a].rows - documents[b].rows);
  const members: number[][] = [];
  for (let start = 0; start < order.length; start += bucketSize) members.push(order.slice(start, start + bucketSize));
  return members;
}

function fillBucket(dim: number, documents: ScorerInput, members: number[]): MaxSimBucket {
  const rows = Math.max(...members.map((i) => documents[i].rows));
  const data = new Float32Array(members.length * rows * dim);
  const padBias = new Float32Array(members.length * rows);
  members.forEach((docIndex, b) => {
    const doc = documents[docIndex];
    data.set(doc.data.subarray(0, doc.rows * dim), b * rows * dim);
    padBias.fill(PAD_BIAS, b * rows + doc.rows, (b + 1) * rows);
  });
  return { documents: data, padBias, count: members.length, rows, documentIndices: Int32Array.from(members) };
}

export async function openMaxSimScorer(options: MaxSimScorerOptions = {}): Promise<MaxSimScorer> {
  const worker: Worker = spawnModuleWorker(__dirname, 'maxsim-worker', { intraOpNumThreads: options.intraOpNumThreads ?? 1 });
  const bucketSize = options.bucketSize ?? 256;
  let nextCorpus = 1;
  const rpc = new WorkerRpc<MaxSimRequest, MaxSimResponse>(worker, {
    failed: (response) => new RetrievalError('ENCODER_INFERENCE_FAILED', `MaxSim scorer: ${response.message}`),
    crashed: (error) => new RetrievalError('ENCODER_INFERENCE_FAILED', `MaxSim scorer crashed: ${error.message}`),
    exited: () => new RetrievalError('ENCODER_CLOSED', 'MaxSim scorer exited'),
    closed: () => new RetrievalError('ENCODER_CLOSED', 'MaxSim scorer is closed'),
  });

  return {
    async register(dim, documents) {
      const corpusId = nextCorpus++;
      // Bucket buffers are moved (not copied) to the scorer thread: onnxruntime-node rejects shared memory.
      const buckets = await buildBuckets(dim, documents, bucketSize);
      const transfer = buckets.flatMap((b) => [b.documents.buffer, b.padBias.buffer, b.documentIndices.buffer] as ArrayBuffer[]);
      await rpc.send({ op: 'register', corpusId, dim, buckets, totalDocuments: documents.length }, transfer);
      return {
        async score(query) {
          if (query.dim !== dim) throw new RetrievalError('INDEX_DIMENSION_MISMATCH', `query has dim ${query.dim}, corpus has ${dim}`);
          const active = nonZeroRows(query);
          if (active.length === 0 || documents.length === 0) return new Float32Array(documents.length);
          const rows = new Float32Array(active.length * dim);
          active.forEach((r, i) => rows.set(query.data.subarray(r * dim, (r + 1) * dim), i * dim));
          const response = await rpc.send({ op: 'score', corpusId, query: rows, queryRows: active.length });
          return response.scores ?? new Float32Array(documents.length);
        },
        async release() {
          if (!rpc.isClosed) await rpc.send({ op: 'release', corpusId });
        },
      };
    },
    close: () => rpc.close(),
  };
}
