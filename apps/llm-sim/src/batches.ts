import { randomUUID } from 'node:crypto';
import { HttpError, hintsFromMetadata, parseConversation, type Conversation, type Dialect } from './conversation';
import type { SimulationMetadata } from './answer';
import type { SimModelConfig } from './sim-config';

/** What the batch endpoints need from the simulator. */
export interface BatchEngine {
  modelConfigFor(model: string, dialect: Dialect): SimModelConfig;
  generate(dialect: Dialect, conv: Conversation, cfg: SimModelConfig): { body: unknown; outputTokens: number; simulation: SimulationMetadata };
}

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  content: string;
  createdAt: number;
}

interface OpenAiBatch {
  id: string;
  object: 'batch';
  endpoint: string;
  errors: null;
  input_file_id: string;
  completion_window: string;
  status: 'validating' | 'in_progress' | 'finalizing' | 'completed' | 'failed';
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  in_progress_at: number | null;
  expires_at: number;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: null;
  expired_at: null;
  cancelling_at: null;
  cancelled_at: null;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
}

interface AnthropicBatch {
  id: string;
  type: 'message_batch';
  processing_status: 'in_progress' | 'ended';
  request_counts: { processing: number; succeeded: number; errored: number; canceled: number; expired: number };
  ended_at: string | null;
  created_at: string;
  expires_at: string;
  archived_at: null;
  cancel_initiated_at: null;
  results_url: string | null;
}

const now = () => Math.floor(Date.now() / 1000);

function errorOf(err: unknown): HttpError {
  return err instanceof HttpError ? err : new HttpError(500, 'server_error', (err as Error).message);
}

/**
 * The OpenAI Batch API (files + batches) and Anthropic Message Batches, kept in memory. A batch is processed
 * right after submission (no rate limits, as providers run batches from a separate pool) after `delayMs`, so
 * clients see it in progress first.
 */
export class SimBatches {
  private readonly files = new Map<string, StoredFile>();
  private readonly openai = new Map<string, OpenAiBatch>();
  private readonly anthropic = new Map<string, { batch: AnthropicBatch; results: string }>();

  constructor(private readonly engine: BatchEngine, private readonly delayMs = 100) {}

  createFile(filename: string, purpose: string, content: string): unknown {
    const file: StoredFile = { id: `file-sim-${randomUUID()}`, filename, purpose, content, createdAt: now() };
    this.files.set(file.id, file);
    return this.fileObject(file);
  }

  private fileObject(f: StoredFile): unknown {
    return { id: f.id, object: 'file', bytes: Buffer.byteLength(f.content), created_at: f.createdAt, filename: f.filename, purpose: f.purpose, status: 'processed' };
  }

  private file(id: string): StoredFile {
    const f = this.files.get(id);
    if (!f) throw new HttpError(404, 'invalid_request_error', `No such File object: ${id}`);
    return f;
  }

  getFile(id: string): unknown {
    return this.fileObject(this.file(id));
  }

  fileContent(id: string): string {
    return this.file(id).content;
  }

  createOpenAiBatch(body: Record<string, unknown>): OpenAiBatch {
    if (typeof body.input_file_id !== 'string') throw new HttpError(400, 'invalid_request_error', 'input_file_id: required string');
    if (body.endpoint !== '/v1/chat/completions') throw new HttpError(400, 'invalid_request_error', 'endpoint: llm-sim batches support /v1/chat/completions only');
    const input = this.file(body.input_file_id);
    const lines = input.content.split('\n').filter((l) => l.trim());
    const batch: OpenAiBatch = {
      id: `batch_sim_${randomUUID().replace(/-/g, '')}`,
      object: 'batch',
      endpoint: body.endpoint,
      errors: null,
      input_file_id: input.id,
      completion_window: typeof body.completion_window === 'string' ? body.completion_window : '24h',
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      created_at: now(),
      in_progress_at: null,
      expires_at: now() + 86_400,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
      request_counts: { total: lines.length, completed: 0, failed: 0 },
      metadata: (body.metadata as Record<string, string> | undefined) ?? null,
    };
    this.openai.set(batch.id, batch);
    setTimeout(() => this.runOpenAi(batch, lines), this.delayMs).unref();
    return batch;
  }

  private runOpenAi(batch: OpenAiBatch, lines: string[]): void {
    batch.status = 'in_progress';
    batch.in_progress_at = now();
    const out: string[] = [];
    const errors: string[] = [];
    lines.forEach((line, i) => {
      let customId = `line-${i + 1}`;
      try {
        const entry = JSON.parse(line) as { custom_id?: unknown; body?: unknown };
        if (typeof entry.custom_id === 'string') customId = entry.custom_id;
        const body = entry.body as Record<string, unknown>;
        const conv = parseConversation('openai', body ?? {}, {});
        const { body: response, simulation } = this.engine.generate('openai', conv, this.engine.modelConfigFor(conv.model, 'openai'));
        out.push(JSON.stringify({ id: `batch_req_${randomUUID().replace(/-/g, '')}`, custom_id: customId, response: { status_code: 200, request_id: randomUUID(), body: response }, error: null, sim: simulation }));
        batch.request_counts.completed++;
      } catch (err) {
        const e = errorOf(err);
        errors.push(
          JSON.stringify({
            id: `batch_req_${randomUUID().replace(/-/g, '')}`,
            custom_id: customId,
            response: { status_code: e.status, request_id: randomUUID(), body: { error: { message: e.message, type: e.type, param: null, code: e.code ?? null } } },
            error: null,
          }),
        );
        batch.request_counts.failed++;
      }
    });
    batch.status = 'finalizing';
    batch.finalizing_at = now();
    batch.output_file_id = (this.createFile(`${batch.id}_output.jsonl`, 'batch_output', out.join('\n') + (out.length ? '\n' : '')) as { id: string }).id;
    if (errors.length) batch.error_file_id = (this.createFile(`${batch.id}_error.jsonl`, 'batch_output', `${errors.join('\n')}\n`) as { id: string }).id;
    batch.status = 'completed';
    batch.completed_at = now();
  }

  getOpenAiBatch(id: string): OpenAiBatch {
    const b = this.openai.get(id);
    if (!b) throw new HttpError(404, 'invalid_request_error', `No batch found with id '${id}'`);
    return b;
  }

  createAnthropicBatch(body: Record<string, unknown>, baseUrl: string): AnthropicBatch {
    if (!Array.isArray(body.requests) || body.requests.length === 0) throw new HttpError(400, 'invalid_request_error', 'requests: required non-empty array');
    const requests = body.requests as Array<{ custom_id?: unknown; params?: unknown }>;
    const batch: AnthropicBatch = {
      id: `msgbatch_sim_${randomUUID().replace(/-/g, '')}`,
      type: 'message_batch',
      processing_status: 'in_progress',
      request_counts: { processing: requests.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
      ended_at: null,
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      archived_at: null,
      cancel_initiated_at: null,
      results_url: null,
    };
    const entry = { batch, results: '' };
    this.anthropic.set(batch.id, entry);
    setTimeout(() => {
      const lines = requests.map((r, i) => {
        const customId = typeof r.custom_id === 'string' ? r.custom_id : `request-${i}`;
        batch.request_counts.processing--;
        try {
          const params = (r.params ?? {}) as Record<string, unknown>;
          const conv = parseConversation('anthropic', params, hintsFromMetadata(params.metadata));
          const { body: message, simulation } = this.engine.generate('anthropic', conv, this.engine.modelConfigFor(conv.model, 'anthropic'));
          batch.request_counts.succeeded++;
          return JSON.stringify({ custom_id: customId, result: { type: 'succeeded', message }, sim: simulation });
        } catch (err) {
          const e = errorOf(err);
          batch.request_counts.errored++;
          return JSON.stringify({ custom_id: customId, result: { type: 'errored', error: { type: 'error', error: { type: e.type, message: e.message } } } });
        }
      });
      entry.results = `${lines.join('\n')}\n`;
      batch.processing_status = 'ended';
      batch.ended_at = new Date().toISOString();
      batch.results_url = `${baseUrl}/v1/messages/batches/${batch.id}/results`;
    }, this.delayMs).unref();
    return batch;
  }

  getAnthropicBatch(id: string): AnthropicBatch {
    const entry = this.anthropic.get(id);
    if (!entry) throw new HttpError(404, 'not_found_error', `No message batch found with id '${id}'`);
    return entry.batch;
  }

  anthropicResults(id: string): string {
    const entry = this.anthropic.get(id);
    if (!entry) throw new HttpError(404, 'not_found_error', `No message batch found with id '${id}'`);
    if (entry.batch.processing_status !== 'ended') throw new HttpError(400, 'invalid_request_error', `Message batch ${id} has not ended`);
    return entry.results;
  }
}
