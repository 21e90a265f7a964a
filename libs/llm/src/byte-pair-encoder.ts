/** A tiktoken rank file as js-tiktoken ships it: lines of `<ignored> <first rank> <base64 token> <base64 token> ...`. */
export interface BpeRanks { pat_str: string; special_tokens: Record<string, number>; bpe_ranks: string }

/**
 * tiktoken's byte-pair encoding of one pre-tokenizer piece, and decoding, over ranks keyed by the token's bytes as a
 * Latin-1 string (one char per byte). js-tiktoken keys its map by `bytes.join(',')`: building that map took 0.5 s of
 * a CLI's plan and a worker's first LLM call, and every lookup joined the piece's bytes again.
 */
export class BytePairEncoder {
  private readonly ranks = new Map<string, number>();
  private readonly bytesOf: string[] = [];

  constructor(ranks: BpeRanks) {
    for (const line of ranks.bpe_ranks.split('\n')) {
      if (line === '') continue;
      const fields = line.split(' ');
      const first = Number.parseInt(fields[1], 10);
      for (let i = 2; i < fields.length; i++) {
        // atob gives the token's bytes one char each, as Buffer.from(.., 'base64').toString('latin1') does, without a
        // buffer per token: o200k's 200k tokens load in 250-310 ms instead of 420-460.
        const bytes = atob(fields[i]);
        this.ranks.set(bytes, first + i - 2);
        this.bytesOf[first + i - 2] = bytes;
      }
    }
    for (const [text, rank] of Object.entries(ranks.special_tokens)) this.bytesOf[rank] = Buffer.from(text, 'utf8').toString('latin1');
  }

  /** The tokens of one piece of the pre-tokenizer's split (no special tokens in it), as tiktoken's `encode` gives them. */
  encodePiece(piece: string): number[] {
    const bytes = Buffer.from(piece, 'utf8').toString('latin1');
    const whole = this.ranks.get(bytes);
    if (whole !== undefined) return [whole];
    // Merge the adjacent pair of lowest rank until no pair has one (tiktoken's bytePairMerge); `starts` are the parts'.
    const starts = Array.from({ length: bytes.length + 1 }, (_, i) => i);
    while (starts.length > 2) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 2 < starts.length; i++) {
        const rank = this.ranks.get(bytes.slice(starts[i], starts[i + 2]));
        if (rank !== undefined && rank < bestRank) {
          bestRank = rank;
          best = i;
        }
      }
      if (best === -1) break;
      starts.splice(best + 1, 1);
    }
    const tokens: number[] = [];
    for (let i = 0; i + 1 < starts.length; i++) {
      const rank = this.ranks.get(bytes.slice(starts[i], starts[i + 1]));
      if (rank !== undefined) tokens.push(rank);
    }
    return tokens;
  }

  /**
   * The text of `tokens`; a cut that splits a character's bytes decodes them as U+FFFD. A leading U+FEFF is kept, as
   * Python's tiktoken keeps it (js-tiktoken's TextDecoder drops it).
   */
  decode(tokens: readonly number[]): string {
    return Buffer.from(tokens.map((t) => this.bytesOf[t] ?? '').join(''), 'latin1').toString('utf8');
  }
}
