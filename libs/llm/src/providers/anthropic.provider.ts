import Anthropic from '@anthropic-ai/sdk';
import { simulationFields, simulationFromBatchLine, simulationFromHeaders } from './simulation-report';
import { isSimulated, rateLimitObservation } from './http-headers';
import { llmErrorFromSdk } from './openai-compatible.provider';
import type { BatchCall, BatchCapableProvider, ProviderBatchResult, ProviderBatchStatus, ProviderCall, ProviderResult } from './provider';
import type { ChatMessage } from '../types';

export interface AnthropicProviderOptions {
  name: string;
  apiKey: string;
  baseUrl?: string;
}

type TextBlock = { type: 'text'; text: string; cache_control?: { type: 'ephemeral' } };

function block(m: ChatMessage): TextBlock {
  return m.cacheBreakpoint ? { type: 'text', text: m.content, cache_control: { type: 'ephemeral' } } : { type: 'text', text: m.content };
}

/** Anthropic messages API; `cacheBreakpoint` messages get `cache_control` so the shared prefix is cached. */
export class AnthropicProvider implements BatchCapableProvider {
  readonly name: string;
  private readonly client: Anthropic;

  constructor(opts: AnthropicProviderOptions) {
    this.name = opts.name;
    this.client = new Anthropic({ apiKey: opts.apiKey, maxRetries: 0, ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}) });
  }

  private params(call: ProviderCall) {
    const system = call.messages.filter((m) => m.role === 'system').map(block);
    const messages = call.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: [block(m)] }));
    return { model: call.apiModel, max_tokens: call.maxTokens, messages, ...(system.length > 0 ? { system } : {}) };
  }

  private toResult(data: Anthropic.Message, headers: Headers | null): ProviderResult {
    const output = data.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const u = data.usage;
    const cacheRead = u.cache_read_input_tokens ?? 0;
    const cacheWrite = u.cache_creation_input_tokens ?? 0;
    return {
      output,
      usage: {
        inputTokens: u.input_tokens + cacheRead + cacheWrite,
        cachedInputTokens: cacheRead,
        outputTokens: u.output_tokens,
        ...(cacheWrite > 0 ? { cacheWriteInputTokens: cacheWrite } : {}),
      },
      simulated: data.id.startsWith('msg_sim_') || isSimulated(headers),
      rateLimit: rateLimitObservation(headers),
      ...simulationFields(simulationFromHeaders(headers)),
    };
  }

  async complete(call: ProviderCall): Promise<ProviderResult> {
    const started = Date.now();
    try {
      const { data, response } = await this.client.messages
        .create(this.params(call), {
          timeout: call.timeoutMs,
          // This SDK's messages API no longer takes a temperature; the simulator reads it from this header.
          headers: { 'x-sqlsweep-sample-index': String(call.sampleIndex), 'x-sqlsweep-temperature': String(call.temperature) },
        })
        .withResponse();
      return this.toResult(data, response.headers);
    } catch (err) {
      throw llmErrorFromSdk(this.name, err, { elapsedMs: Date.now() - started, timeoutMs: call.timeoutMs });
    }
  }

  async submitBatch(calls: BatchCall[]): Promise<string> {
    try {
      const batch = await this.client.messages.batches.create({
        requests: calls.map((c) => ({
          custom_id: c.customId,
          // metadata.user_id carries temperature and sample index to the simulator; real providers ignore it.
          params: { ...this.params(c.call), metadata: { user_id: `sqlsweep:t=${c.call.temperature}:s=${c.call.sampleIndex}` } },
        })),
      });
      return batch.id;
    } catch (err) {
      throw llmErrorFromSdk(this.name, err);
    }
  }

  async batchStatus(batchId: string): Promise<ProviderBatchStatus> {
    try {
      const b = await this.client.messages.batches.retrieve(batchId);
      const c = b.request_counts;
      return {
        state: b.processing_status === 'ended' ? 'ended' : 'in_progress',
        total: c.processing + c.succeeded + c.errored + c.canceled + c.expired,
        succeeded: c.succeeded,
        failed: c.errored + c.canceled + c.expired,
      };
    } catch (err) {
      throw llmErrorFromSdk(this.name, err);
    }
  }

  async batchResults(batchId: string): Promise<ProviderBatchResult[]> {
    try {
      const results: ProviderBatchResult[] = [];
      for await (const entry of await this.client.messages.batches.results(batchId)) {
        if (entry.result.type === 'succeeded') {
          results.push({ customId: entry.custom_id, result: { ...this.toResult(entry.result.message, null), ...simulationFields(simulationFromBatchLine(entry)) } });
        } else {
          const message = entry.result.type === 'errored' ? JSON.stringify(entry.result.error) : entry.result.type;
          results.push({ customId: entry.custom_id, error: { status: 0, message } });
        }
      }
      return results;
    } catch (err) {
      throw llmErrorFromSdk(this.name, err);
    }
  }
}
