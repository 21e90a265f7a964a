import { Tiktoken } from 'js-tiktoken/lite';
import type { ChatMessage } from './types';

type EncodingName = 'o200k_base' | 'cl100k_base';

type Ranks = ConstructorParameters<typeof Tiktoken>[0];

/**
 * Counts tokens as tiktoken does (special tokens first, then the encoding's pre-tokenizer pattern, then BPE within
 * each piece), remembering each piece's count. Prompts repeat the same schema words thousands of times, and BPE on
 * them dominated planning a sweep's estimate and every LLM call's rate-budget reservation.
 */
class TokenCounter {
  private readonly pieceCounts = new Map<string, number>();
  private readonly pattern: RegExp;
  private readonly special: RegExp;

  constructor(private readonly encoder: Tiktoken, ranks: Ranks) {
    this.pattern = new RegExp(ranks.pat_str, 'gu');
    this.special = new RegExp(Object.keys(ranks.special_tokens).map((t) => t.replace(/[|\\{}()[\]^$+*?.]/g, '\\$&')).join('|'), 'g');
  }

  count(text: string): number {
    let total = 0;
    let start = 0;
    for (const special of text.matchAll(this.special)) {
      total += this.countOrdinary(text.slice(start, special.index)) + 1;
      start = special.index + special[0].length;
    }
    return total + this.countOrdinary(text.slice(start));
  }

  private countOrdinary(text: string): number {
    let total = 0;
    for (const [piece] of text.matchAll(this.pattern)) {
      let n = this.pieceCounts.get(piece);
      if (n === undefined) {
        n = this.encoder.encode(piece, 'all').length;
        if (this.pieceCounts.size >= 200_000) this.pieceCounts.clear();
        this.pieceCounts.set(piece, n);
      }
      total += n;
    }
    return total;
  }
}

const counters = new Map<EncodingName, TokenCounter>();

export function loadRanks(name: EncodingName): Ranks {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(`js-tiktoken/ranks/${name}`) as { default?: Ranks };
  return (module.default ?? module) as Ranks;
}

function counter(name: EncodingName): TokenCounter {
  let c = counters.get(name);
  if (!c) {
    const ranks = loadRanks(name);
    c = new TokenCounter(new Tiktoken(ranks), ranks);
    counters.set(name, c);
  }
  return c;
}

export function countTokens(text: string, encoding: EncodingName = 'o200k_base'): number {
  return counter(encoding).count(text);
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
