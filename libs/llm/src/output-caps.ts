/**
 * The `max_tokens` actually sent for a stage: learned from the output lengths that stage has produced on that model,
 * so that a provider that charges `max_tokens` at admission (OpenAI's TPM) is not charged 512 tokens for a 25-token
 * answer. The stage's own limit (its `maxTokens`, part of its stage key) stays the meaning: an answer that fills the
 * learned cap may have been cut short, and is asked again with the stage's limit (`needsFullLimit`), so what is
 * stored is always what a call with the stage's limit returns.
 */
export interface OutputCapSettings {
  /** Calls of a (model, stage) seen before a cap is used; until then the stage's limit is sent. */
  minObservations: number;
  /** The observed quantile the cap starts from. */
  quantile: number;
  /** Cap = quantile × headroom + slack tokens. */
  headroom: number;
  slack: number;
  /** Output lengths kept per (model, stage): the most recent ones. */
  window: number;
}

export const defaultOutputCapSettings: OutputCapSettings = { minObservations: 20, quantile: 0.99, headroom: 1.5, slack: 16, window: 200 };

export class OutputCaps {
  private readonly seen = new Map<string, number[]>();

  constructor(private readonly settings: OutputCapSettings = defaultOutputCapSettings) {}

  /** What to send as `max_tokens` for a call of `stage` on `model` whose own limit is `limit`. */
  capFor(model: string, stage: string | undefined, limit: number): number {
    const lengths = stage === undefined ? undefined : this.seen.get(keyOf(model, stage));
    if (!lengths || lengths.length < this.settings.minObservations) return limit;
    const sorted = [...lengths].sort((a, b) => a - b);
    const q = sorted[Math.min(sorted.length - 1, Math.ceil(this.settings.quantile * sorted.length) - 1)];
    return Math.min(limit, Math.ceil(q * this.settings.headroom) + this.settings.slack);
  }

  /** Records the output length of an answer that was not cut short by a learned cap. */
  observe(model: string, stage: string | undefined, outputTokens: number): void {
    if (stage === undefined) return;
    const key = keyOf(model, stage);
    const lengths = this.seen.get(key) ?? [];
    lengths.push(outputTokens);
    if (lengths.length > this.settings.window) lengths.shift();
    this.seen.set(key, lengths);
  }

  /** An answer that used every token of a cap below the stage's limit may be cut short: ask again with the limit. */
  static needsFullLimit(sent: number, limit: number, outputTokens: number): boolean {
    return sent < limit && outputTokens >= sent;
  }
}

const keyOf = (model: string, stage: string) => `${model}\u0000${stage}`;
