// Entry of the encoder worker thread: owns the onnxruntime session so inference never blocks the caller's loop.
import { parentPort, workerData } from 'node:worker_threads';
import { RetrievalError } from '../errors';
import { readEncoderConfig } from './encoder-config';
import { EncoderInference } from './encoder-inference';
import type { EncoderRequest, EncoderResponse, EncoderWorkerData, EncoderWorkerEvent } from './encoder-protocol';

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('encoder-worker must run in a worker thread');
  const data = workerData as EncoderWorkerData;
  let inference: EncoderInference;
  try {
    inference = await EncoderInference.open(data, readEncoderConfig(data.modelDir));
  } catch (error) {
    const code = error instanceof RetrievalError ? error.code : 'ENCODER_MODEL_MISSING';
    port.postMessage({ event: 'failed', code, message: (error as Error).message } satisfies EncoderWorkerEvent);
    return;
  }
  port.postMessage({ event: 'ready', provider: inference.provider, fallbackReason: inference.fallbackReason } satisfies EncoderWorkerEvent);
  // Requests are served one at a time, in order: onnxruntime already uses intraOpNumThreads cores per run.
  let queue = Promise.resolve();
  port.on('message', (request: EncoderRequest) => {
    queue = queue.then(async () => {
      if (request.op === 'close') {
        port.close();
        return;
      }
      let response: EncoderResponse;
      try {
        const batch = await inference.encode(request.texts, request.role, request.pooled);
        response = { id: request.id, ok: true, data: batch.data, rows: batch.rows };
        port.postMessage(response, [batch.data.buffer as ArrayBuffer]);
      } catch (error) {
        const code = error instanceof RetrievalError ? error.code : 'ENCODER_INFERENCE_FAILED';
        response = { id: request.id, ok: false, code, message: (error as Error).message };
        port.postMessage(response);
      }
    });
  });
}

void main();
