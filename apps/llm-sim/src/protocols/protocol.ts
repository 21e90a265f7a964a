import type { GoldItem } from '../gold-index';
import type { Rng } from '../rng';

/**
 * A stage protocol a pipeline adds to the simulator: how to recognise its prompts, and how to answer from the
 * target item's gold SQL (`sql` is the gold, or a corrupted copy when the simulated model gets it wrong).
 */
export interface MethodProtocol {
  name: string;
  /** Lower-cased system text + last user turn; return true when this protocol's prompt is recognised. */
  detect(instructions: string): boolean;
  /** The answer is a SQL query (the answer model's schema terms apply: a prompt lacking a gold table cannot reach it). */
  answersSql?: boolean;
  render(args: { item: GoldItem; sql: string; rng: Rng; correct: boolean; prompt: string }): string;
}
