import type { TextRole } from './colbert-tokenization';

export type ExecutionProviderName = 'cpu' | 'cuda';

export interface EncoderWorkerData {
  modelDir: string;
  intraOpNumThreads: number;
  batchSize: number;
  executionProvider: ExecutionProviderName;
}

export type EncoderRequest =
  | { id: number; op: 'encode'; role: TextRole; texts: string[]; pooled: boolean }
  | { id: number; op: 'close' };

export type EncoderResponse =
  | { id: number; ok: true; data: Float32Array; rows: number[] }
  | { id: number; ok: false; code: string; message: string };

export type EncoderWorkerEvent =
  | { event: 'ready'; provider: ExecutionProviderName; fallbackReason?: string }
  | { event: 'failed'; code: string; message: string };
