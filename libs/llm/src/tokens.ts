import { Tiktoken } from 'js-tiktoken/lite';
import type { ChatMessage } from './types';

type EncodingName = 'o200k_base' | 'cl100k_base';

const encoders = new Map<EncodingName, Tiktoken>();

function encoder(name: EncodingName): Tiktoken {
  let enc = encoders.get(name);
  if (!enc) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ranks = require(`js-tiktoken/ranks/${name}`) as { default?: ConstructorParameters<typeof Tiktoken>[0] };
    enc = new Tiktoken((ranks.default ?? ranks) as ConstructorParameters<typeof Tiktoken>[0]);
    encoders.set(name, enc);
  }
  return enc;
}

export function countTokens(text: string, encoding: EncodingName = 'o200k_base'): number {
  return encoder(encoding).encode(text, 'all').length;
}

/** Chat-format overhead per message and per reply, as OpenAI documents it for its chat models. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;

export function countChatTokens(messages: ReadonlyArray<Pick<ChatMessage, 'role' | 'content'>>, encoding: EncodingName = 'o200k_base'): number {
  let total = TOKENS_PER_REPLY;
  for (const m of messages) total += TOKENS_PER_MESSAGE + countTokens(m.role, encoding) + countTokens(m.content, encoding);
  return total;
}

function encodingForModel(model: string): EncodingName {
  return /^(gpt-3\.5|gpt-4(?!o|\.1)|text-embedding)/.test(model) ? 'cl100k_base' : 'o200k_base';
}

/** Input tokens of a chat request, counted with a real BPE tokenizer (o200k, or cl100k for older OpenAI models). */
export function estimateTokens(model: string, messages: ChatMessage[]): number {
  return countChatTokens(messages, encodingForModel(model));
}
