import OpenAI, { toFile } from 'openai';
import { isQuotaRefusal, LlmError } from '../errors';
import { simulationFields, simulationFromBatchLine, simulationFromHeaders } from './simulation-report';
import { isSimulated, rateLimitObservation, retryAfterMs } from './http-headers';
import type { BatchCall, BatchCapableProvider, ProviderBatchResult, ProviderBatchStatus, ProviderCall, ProviderResult } from './provider';

export interface OpenAiCompatibleProviderOptions {
  name: string;
  apiKey: string;
  baseUrl?: string;
  /** OpenAI proper wants `max_completion_tokens`; most compatible servers know only `max_tokens`. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
}

/** Maps an SDK error to an LlmError; the key is never part of the message. */
export function llmErrorFromSdk(provider: string, err: unknown, timing?: { elapsedMs: number; timeoutMs: number }): LlmError {
  if (err instanceof LlmError) return err;
  const e = err as { name?: string; status?: number; message?: string; headers?: { get(n: string): string | null }; code?: string | null; type?: string; error?: unknown };
  // The SDKs' error classes do not all set `name`; their constructor names are stable.
  const name = `${(err as object)?.constructor?.name ?? ''} ${e?.name ?? ''}`;
  const message = `${provider}: ${e?.message ?? String(err)}`;
  if (/APIConnectionTimeoutError|AbortError|TimeoutError/.test(name)) return new LlmError('timeout', message, { cause: err });
  if (/APIConnectionError/.test(name) || typeof e?.status !== 'number') {
    // An abort from another realm (e.g. under Jest) reaches the SDK as a plain connection error: the clock decides.
    if (timing && timing.elapsedMs >= timing.timeoutMs * 0.98) {
      return new LlmError('timeout', `${provider}: request timed out after ${timing.timeoutMs} ms`, { cause: err });
    }
    return new LlmError('network', message, { cause: err });
  }
  const status = e.status;
  const body = (e.error ?? {}) as { code?: string; type?: string; error?: { code?: string; type?: string } };
  const refusal = {
    status,
    codes: [e.code, e.type, body.code, body.type, body.error?.code, body.error?.type],
    text: `${e.message ?? ''} ${JSON.stringify(e.error ?? '')}`,
  };
  if (isQuotaRefusal(refusal)) {
    return new LlmError('quota_exhausted', message, { status, cause: err });
  }
  if (status === 429) {
    const after = retryAfterMs(e.headers);
    return new LlmError('rate_limited', message, { status, cause: err, ...(after !== undefined ? { retryAfterMs: after } : {}) });
  }
  if (status === 401 || status === 403) return new LlmError('auth', message, { status, cause: err });
  if (status === 408) return new LlmError('timeout', message, { status, cause: err });
  if (status >= 500) return new LlmError('server', message, { status, cause: err });
  return new LlmError('bad_request', message, { status, cause: err });
}

/** OpenAI chat completions, and any server speaking that wire format (vLLM, Ollama, llama.cpp, llm-sim). */
export class OpenAiCompatibleProvider implements BatchCapableProvider {
  readonly name: string;
  private readonly client: OpenAI;

  constructor(private readonly opts: OpenAiCompatibleProviderOptions) {
    this.name = opts.name;
    // Retries belong to the job queue, not to the SDK.
    this.client = new OpenAI({ apiKey: opts.apiKey, maxRetries: 0, ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}) });
  }

  private body(call: ProviderCall) {
    return {
      model: call.apiModel,
      messages: call.messages.map((m) => ({ role: m.role, content: m.content })),
      temperature: call.temperature,
      seed: call.sampleIndex,
      [this.opts.maxTokensField]: call.maxTokens,
    };
  }

  async submitBatch(calls: BatchCall[]): Promise<string> {
    const jsonl = calls.map((c) => JSON.stringify({ custom_id: c.customId, method: 'POST', url: '/v1/chat/completions', body: this.body(c.call) })).join('\n');
    try {
      const file = await this.client.files.create({ file: await toFile(Buffer.from(`${jsonl}\n`), 'sqlsweep-batch.jsonl'), purpose: 'batch' });
      const batch = await this.client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      return batch.id;
    } catch (err) {
      throw llmErrorFromSdk(this.name, err);
    }
  }

  async batchStatus(batchId: string): Promise<ProviderBatchStatus> {
    try {
      const b = await this.client.batches.retrieve(batchId);
      const counts = b.request_counts ?? { total: 0, completed: 0, failed: 0 };
      const state: ProviderBatchStatus['state'] =
        b.status === 'completed' ? 'ended' : b.status === 'failed' ? 'failed' : b.status === 'expired' ? 'expired' : b.status === 'cancelled' ? 'cancelled' : 'in_progress';
      return { state, total: counts.total, succeeded: counts.completed, failed: counts.failed };
    } catch (err) {
      throw llmErrorFromSdk(this.name, err);
    }
  }

  async batchResults(batchId: string): Promise<ProviderBatchResult[]> {
    try {
      const b = await this.client.batches.retrieve(batchId);
      const results: ProviderBatchResult[] = [];
      for (const fileId of [b.output_file_id, b.error_file_id]) {
        if (!fileId) continue;
        const text = await (await this.client.files.content(fileId)).text();
        for (const line of text.split('\n').filter((l) => l.trim())) {
          const entry = JSON.parse(line) as {
            custom_id: string;
            response: { status_code: number; body: OpenAI.ChatCompletion & { error?: { message: string } } } | null;
            error: { message: string } | null;
          };
          const r = entry.response;
          if (r && r.status_code === 200) {
            results.push({ customId: entry.custom_id, result: { ...this.toResult(r.body, null), ...simulationFields(simulationFromBatchLine(entry)) } });
          } else {
            results.push({ customId: entry.custom_id, error: { status: r?.status_code ?? 0, message: r?.body.error?.message ?? entry.error?.message ?? 'batch request failed' } });
          }
        }
      }
      return results;
    } catch (err) {
      throw llmErrorFromSdk(this.name, err);
    }
  }

  private toResult(data: OpenAI.ChatCompletion, headers: Headers | null): ProviderResult {
    const choice = data.choices[0];
    if (!choice) throw new LlmError('server', `${this.name}: response has no choices`);
    const usage = data.usage;
    return {
      output: choice.message.content ?? '',
      usage: {
        inputTokens: usage?.prompt_tokens ?? 0,
        cachedInputTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
        outputTokens: usage?.completion_tokens ?? 0,
      },
      simulated: data.system_fingerprint === 'sqlsweep-llm-sim' || isSimulated(headers),
      rateLimit: rateLimitObservation(headers),
      ...simulationFields(simulationFromHeaders(headers)),
    };
  }

  async complete(call: ProviderCall): Promise<ProviderResult> {
    const started = Date.now();
    try {
      const { data, response } = await this.client.chat.completions
        .create(this.body(call), { timeout: call.timeoutMs, headers: { 'x-sqlsweep-sample-index': String(call.sampleIndex) } })
        .withResponse();
      return this.toResult(data, response.headers);
    } catch (err) {
      throw llmErrorFromSdk(this.name, err, { elapsedMs: Date.now() - started, timeoutMs: call.timeoutMs });
    }
  }
}
