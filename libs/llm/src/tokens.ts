import { Tiktoken } from 'js-tiktoken/lite';
import type { ChatMessage } from './types';

type EncodingName = 'o200k_base' | 'cl100k_base';

type Ranks = ConstructorParameters<typeof Tiktoken>[0];

/** Whole segments remembered at most, in characters (the memo is emptied when full). */
const SEGMENT_MEMO_CHARS = 8_000_000;

/**
 * Where a text cannot be cut after a newline: at a slash (o200k's punctuation pieces take `[\r\n/]*`), or at a
 * whitespace run that holds another line break (`\s*[\r\n]+` would take the newline before the cut with it).
 */
const JOINS_AFTER_NEWLINE = /\/|[^\S\r\n]*[\r\n]/y;

/**
 * Counts tokens as tiktoken does (special tokens first, then the encoding's pre-tokenizer pattern, then BPE within
 * each piece), remembering each piece's count. Prompts repeat the same schema words thousands of times, and BPE on
 * them dominated planning a sweep's estimate and every LLM call's rate-budget reservation.
 *
 * Prompts also repeat whole paragraphs and lines (a database's CREATE TABLE statements for each of its questions),
 * so a text is counted by segments, each remembered whole: paragraphs, and the lines of a paragraph not seen before.
 * A text is cut only right after a newline, and only where no piece of the pre-tokenizer can span the cut. No piece
 * of either pattern (o200k, cl100k) holds a newline and what follows it unless that is a line break, a slash, or
 * whitespace up to a line break; and the pieces before the cut are those of the text that ends there (the only lookahead, `\s+(?!\S)`, comes after `\s*[\r\n]+`, which takes any
 * whitespace that ends in the newline first). So the sum over segments is tiktoken's count exactly.
 */
class TokenCounter {
  private readonly pieceCounts = new Map<string, number>();
  private readonly segmentCounts = new Map<string, number>();
  private segmentChars = 0;
  private readonly pattern: RegExp;
  private readonly special: RegExp;
  /** What every special token starts with (`<|`): a text without it holds none, and skips the search for them. */
  private readonly specialPrefix: string;

  constructor(private readonly encoder: Tiktoken, ranks: Ranks) {
    this.pattern = new RegExp(ranks.pat_str, 'gu');
    const specials = Object.keys(ranks.special_tokens);
    this.special = new RegExp(specials.map((t) => t.replace(/[|\\{}()[\]^$+*?.]/g, '\\$&')).join('|'), 'g');
    this.specialPrefix = specials.reduce((prefix, t) => {
      let n = 0;
      while (n < prefix.length && prefix[n] === t[n]) n++;
      return prefix.slice(0, n);
    }, specials[0] ?? '');
  }

  count(text: string): number {
    if (this.specialPrefix !== '' && !text.includes(this.specialPrefix)) return this.countOrdinary(text);
    let total = 0;
    let start = 0;
    for (const special of text.matchAll(this.special)) {
      total += this.countOrdinary(text.slice(start, special.index)) + 1;
      start = special.index + special[0].length;
    }
    return total + this.countOrdinary(text.slice(start));
  }

  /** By paragraphs (cut after a blank line), each remembered whole: a database's schema is a few of them. */
  private countOrdinary(text: string): number {
    return this.countCut(text, '\n\n', true);
  }

  /** By lines, each remembered whole: a paragraph seen for the first time often repeats lines of others. */
  private countLines(text: string): number {
    return this.countCut(text, '\n', false);
  }

  /**
   * The sum over the segments of `text` cut after each `cut` where no piece can span it, each counted through the
   * memo (`paragraphs`: as paragraphs, else as lines). A text with no cut is a paragraph counted by lines, or a line
   * counted by pieces.
   */
  private countCut(text: string, cut: string, paragraphs: boolean): number {
    let total = 0;
    let start = 0;
    for (let at = text.indexOf(cut); at !== -1 && at + cut.length < text.length; at = text.indexOf(cut, at + 1)) {
      const end = at + cut.length;
      if (this.joinsAt(text, end)) continue;
      total += this.countSegment(text.slice(start, end), paragraphs);
      start = end;
    }
    if (start === 0) return paragraphs ? this.countSegment(text, true) : this.countPieces(text);
    return total + this.countSegment(text.slice(start), paragraphs);
  }

  /** Whether a piece could span a cut right after the newline at `at - 1`. */
  private joinsAt(text: string, at: number): boolean {
    JOINS_AFTER_NEWLINE.lastIndex = at;
    return JOINS_AFTER_NEWLINE.test(text);
  }

  private countSegment(segment: string, paragraph: boolean): number {
    let n = this.segmentCounts.get(segment);
    if (n === undefined) {
      n = paragraph ? this.countLines(segment) : this.countPieces(segment);
      if (this.segmentChars + segment.length > SEGMENT_MEMO_CHARS) {
        this.segmentCounts.clear();
        this.segmentChars = 0;
      }
      // A copy: the slice would keep the whole text it was cut from alive for as long as the memo holds it.
      this.segmentCounts.set((` ${segment}`).slice(1), n);
      this.segmentChars += segment.length;
    }
    return n;
  }

  private countPieces(text: string): number {
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
