import Anthropic from '@anthropic-ai/sdk';
import { isSimulated, rateLimitObservation } from './http-headers';
import { llmErrorFromSdk } from './openai-compatible.provider';
import type { LlmProvider, ProviderCall, ProviderResult } from './provider';
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
export class AnthropicProvider implements LlmProvider {
  readonly name: string;
  private readonly client: Anthropic;

  constructor(opts: AnthropicProviderOptions) {
    this.name = opts.name;
    this.client = new Anthropic({ apiKey: opts.apiKey, maxRetries: 0, ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}) });
  }

  async complete(call: ProviderCall): Promise<ProviderResult> {
    const system = call.messages.filter((m) => m.role === 'system').map(block);
    const messages = call.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: [block(m)] }));
    const started = Date.now();
    try {
      const { data, response } = await this.client.messages
        .create(
          {
            model: call.apiModel,
            max_tokens: call.maxTokens,
            messages,
            ...(system.length > 0 ? { system } : {}),
          },
          {
            timeout: call.timeoutMs,
            // This SDK's messages API no longer takes a temperature; the simulator reads it from this header.
            headers: { 'x-sqlsweep-sample-index': String(call.sampleIndex), 'x-sqlsweep-temperature': String(call.temperature) },
          },
        )
        .withResponse();
      const output = data.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      const u = data.usage;
      const cacheRead = u.cache_read_input_tokens ?? 0;
      const cacheWrite = u.cache_creation_input_tokens ?? 0;
      return {
        output,
        usage: { inputTokens: u.input_tokens + cacheRead + cacheWrite, cachedInputTokens: cacheRead, outputTokens: u.output_tokens },
        simulated: isSimulated(response.headers),
        rateLimit: rateLimitObservation(response.headers),
      };
    } catch (err) {
      throw llmErrorFromSdk(this.name, err, { elapsedMs: Date.now() - started, timeoutMs: call.timeoutMs });
    }
  }
}
