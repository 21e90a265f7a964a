import { BytePairEncoder, type BpeRanks } from './byte-pair-encoder';
import type { ChatMessage } from './types';

type EncodingName = 'o200k_base' | 'cl100k_base';

/** Whole segments remembered at most, in characters (the memo is emptied when full). */
const SEGMENT_MEMO_CHARS = 8_000_000;

/**
 * Where a text cannot be cut after a newline: at a slash (o200k's punctuation pieces take `[\r\n/]*`), or at a
 * whitespace run that holds another line break (`\s*[\r\n]+` would take the newline before the cut with it).
 */
const JOINS_AFTER_NEWLINE = /\/|[^\S\r\n]*[\r\n]/y;

/**
 * Encodes or counts tokens as tiktoken does (special tokens first, then the encoding's pre-tokenizer pattern, then
 * BPE within each piece), remembering each piece's tokens. Prompts repeat the same schema words thousands of times,
 * and BPE on them dominated planning a sweep's estimate, every LLM call's rate-budget reservation and the simulator's
 * usage figures.
 *
 * Prompts also repeat whole paragraphs and lines (a database's CREATE TABLE statements for each of its questions),
 * so a text is taken by segments, each remembered whole: paragraphs, and the lines of a paragraph not seen before.
 * A text is cut only right after a newline, and only where no piece of the pre-tokenizer can span the cut. No piece
 * of either pattern (o200k, cl100k) holds a newline and what follows it unless that is a line break, a slash, or
 * whitespace up to a line break; and the pieces before the cut are those of the text that ends there (the only lookahead, `\s+(?!\S)`, comes after `\s*[\r\n]+`, which takes any
 * whitespace that ends in the newline first). So the concatenation over segments is tiktoken's encoding exactly.
 *
 * `T` is what is remembered of a piece or segment: its count (`join` adds) or its tokens (`join` concatenates).
 */
class SegmentMemo<T> {
  private readonly pieces = new Map<string, T>();
  private readonly segments = new Map<string, T>();
  private segmentChars = 0;

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly of: { tokens: (tokens: number[]) => T; special: (token: number) => T; join: (parts: T[]) => T },
  ) {}

  take(text: string): T {
    const { specials, specialPrefix } = this.tokenizer;
    if (specialPrefix !== '' && !text.includes(specialPrefix)) return this.ordinary(text);
    const parts: T[] = [];
    let start = 0;
    for (const special of text.matchAll(specials)) {
      parts.push(this.ordinary(text.slice(start, special.index)), this.of.special(this.tokenizer.specialTokens[special[0]]));
      start = special.index + special[0].length;
    }
    parts.push(this.ordinary(text.slice(start)));
    return this.of.join(parts);
  }

  /** By paragraphs (cut after a blank line), each remembered whole: a database's schema is a few of them. */
  private ordinary(text: string): T {
    return this.cut(text, '\n\n', true);
  }

  /** By lines, each remembered whole: a paragraph seen for the first time often repeats lines of others. */
  private lines(text: string): T {
    return this.cut(text, '\n', false);
  }

  /**
   * The segments of `text` cut after each `cut` where no piece can span it, each taken through the memo
   * (`paragraphs`: as paragraphs, else as lines), joined. A text with no cut is a paragraph taken by lines, or a line
   * taken by pieces.
   */
  private cut(text: string, cut: string, paragraphs: boolean): T {
    const parts: T[] = [];
    let start = 0;
    for (let at = text.indexOf(cut); at !== -1 && at + cut.length < text.length; at = text.indexOf(cut, at + 1)) {
      const end = at + cut.length;
      if (joinsAt(text, end)) continue;
      parts.push(this.segment(text.slice(start, end), paragraphs));
      start = end;
    }
    if (start === 0) return paragraphs ? this.segment(text, true) : this.byPieces(text);
    parts.push(this.segment(text.slice(start), paragraphs));
    return this.of.join(parts);
  }

  private segment(segment: string, paragraph: boolean): T {
    let taken = this.segments.get(segment);
    if (taken === undefined) {
      taken = paragraph ? this.lines(segment) : this.byPieces(segment);
      if (this.segmentChars + segment.length > SEGMENT_MEMO_CHARS) {
        this.segments.clear();
        this.segmentChars = 0;
      }
      // A copy: the slice would keep the whole text it was cut from alive for as long as the memo holds it.
      this.segments.set((` ${segment}`).slice(1), taken);
      this.segmentChars += segment.length;
    }
    return taken;
  }

  private byPieces(text: string): T {
    const parts: T[] = [];
    for (const [piece] of text.matchAll(this.tokenizer.pattern)) {
      let taken = this.pieces.get(piece);
      if (taken === undefined) {
        taken = this.of.tokens(this.tokenizer.encoder.encodePiece(piece));
        if (this.pieces.size >= 200_000) this.pieces.clear();
        // A copy, as for segments: a long piece would be a slice of the whole text.
        this.pieces.set((` ${piece}`).slice(1), taken);
      }
      parts.push(taken);
    }
    return this.of.join(parts);
  }
}

/** Whether a piece could span a cut right after the newline at `at - 1`. */
function joinsAt(text: string, at: number): boolean {
  JOINS_AFTER_NEWLINE.lastIndex = at;
  return JOINS_AFTER_NEWLINE.test(text);
}

/** An encoding's BPE, its pre-tokenizer pattern and its special tokens, with a memo of counts and one of tokens. */
class Tokenizer {
  readonly encoder: BytePairEncoder;
  readonly pattern: RegExp;
  readonly specials: RegExp;
  readonly specialTokens: Record<string, number>;
  /** What every special token starts with (`<|`): a text without it holds none, and skips the search for them. */
  readonly specialPrefix: string;
  readonly counts = new SegmentMemo<number>(this, { tokens: (t) => t.length, special: () => 1, join: (parts) => parts.reduce((a, b) => a + b, 0) });
  /** Frozen: callers get the memo's own arrays, which must never change. */
  readonly tokens = new SegmentMemo<readonly number[]>(this, {
    tokens: (t) => Object.freeze(t), special: (t) => Object.freeze([t]), join: (parts) => Object.freeze(parts.flat()),
  });

  constructor(ranks: BpeRanks) {
    this.encoder = new BytePairEncoder(ranks);
    this.pattern = new RegExp(ranks.pat_str, 'gu');
    this.specialTokens = ranks.special_tokens;
    const specials = Object.keys(ranks.special_tokens);
    this.specials = new RegExp(specials.map((t) => t.replace(/[|\\{}()[\]^$+*?.]/g, '\\$&')).join('|'), 'g');
    this.specialPrefix = specials.reduce((prefix, t) => {
      let n = 0;
      while (n < prefix.length && prefix[n] === t[n]) n++;
      return prefix.slice(0, n);
    }, specials[0] ?? '');
  }
}

const tokenizers = new Map<EncodingName, Tokenizer>();

export function loadRanks(name: EncodingName): BpeRanks {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(`js-tiktoken/ranks/${name}`) as { default?: BpeRanks };
  return (module.default ?? module) as BpeRanks;
}

function tokenizer(name: EncodingName): Tokenizer {
  let t = tokenizers.get(name);
  if (!t) {
    t = new Tokenizer(loadRanks(name));
    tokenizers.set(name, t);
  }
  return t;
}

export function countTokens(text: string, encoding: EncodingName = 'o200k_base'): number {
  return tokenizer(encoding).counts.take(text);
}

/** tiktoken's `encode(text, 'all')`, from a memo of pieces and segments like `countTokens`'s; the array is frozen. */
export function encodeTokens(text: string, encoding: EncodingName = 'o200k_base'): readonly number[] {
  return tokenizer(encoding).tokens.take(text);
}

/** tiktoken's `decode(tokens)`. */
export function decodeTokens(tokens: readonly number[], encoding: EncodingName = 'o200k_base'): string {
  return tokenizer(encoding).encoder.decode(tokens);
}

/** Chat-format overhead per message and per reply, as OpenAI documents it for its chat models. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;

export function countChatTokens(messages: ReadonlyArray<{ role: string; content: string }>, encoding: EncodingName = 'o200k_base'): number {
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
