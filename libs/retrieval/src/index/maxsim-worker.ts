// Worker thread that scores MaxSim with onnxruntime over corpora registered as shared padded buckets.
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { buildMaxSimModel } from './maxsim-graph';
import type { MaxSimBucket, MaxSimRequest, MaxSimResponse } from './maxsim-protocol';

interface Corpus {
  dim: number;
  buckets: { bucket: MaxSimBucket; documents: ort.Tensor; padBias: ort.Tensor }[];
  totalDocuments: number;
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('maxsim-worker must run in a worker thread');
  const { intraOpNumThreads } = workerData as { intraOpNumThreads: number };
  const sessions = new Map<number, Promise<ort.InferenceSession>>();
  const sessionFor = (dim: number) => {
    let session = sessions.get(dim);
    if (!session) {
      session = ort.InferenceSession.create(buildMaxSimModel(dim), { intraOpNumThreads, interOpNumThreads: 1, executionProviders: ['cpu'] });
      sessions.set(dim, session);
    }
    return session;
  };
  const corpora = new Map<number, Corpus>();

  const handle = async (request: MaxSimRequest): Promise<{ response: MaxSimResponse; transfer: ArrayBuffer[] }> => {
    if (request.op === 'register') {
      corpora.set(request.corpusId, {
        dim: request.dim,
        totalDocuments: request.totalDocuments,
        buckets: request.buckets.map((bucket) => ({
          bucket,
          documents: new ort.Tensor('float32', bucket.documents, [bucket.count, bucket.rows, request.dim]),
          padBias: new ort.Tensor('float32', bucket.padBias, [bucket.count, bucket.rows, 1]),
        })),
      });
      await sessionFor(request.dim);
      return { response: { id: request.id, ok: true }, transfer: [] };
    }
    if (request.op === 'release') {
      corpora.delete(request.corpusId);
      return { response: { id: request.id, ok: true }, transfer: [] };
    }
    const corpus = corpora.get(request.corpusId);
    if (!corpus) return { response: { id: request.id, ok: false, message: `corpus ${request.corpusId} is not registered` }, transfer: [] };
    const session = await sessionFor(corpus.dim);
    const query = new ort.Tensor('float32', request.query, [request.queryRows, corpus.dim]);
    const scores = new Float32Array(corpus.totalDocuments);
    for (const { bucket, documents, padBias } of corpus.buckets) {
      const out = await session.run({ documents, pad_bias: padBias, query });
      const values = out.scores.data as Float32Array;
      for (let i = 0; i < bucket.count; i++) scores[bucket.documentIndices[i]] = values[i];
    }
    return { response: { id: request.id, ok: true, scores }, transfer: [scores.buffer as ArrayBuffer] };
  };

  let queue = Promise.resolve();
  port.on('message', (request: MaxSimRequest) => {
    queue = queue.then(async () => {
      try {
        const { response, transfer } = await handle(request);
        port.postMessage(response, transfer);
      } catch (error) {
        port.postMessage({ id: request.id, ok: false, message: (error as Error).message } satisfies MaxSimResponse);
      }
    });
  });
}

void main();
