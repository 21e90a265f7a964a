import { RB_SQL_DEFAULTS } from '@sqlsweep/contracts';

/** What besides the encoder and the dataset changes a table-retrieval curve. */
export interface CurveOptions {
  split: 'dev' | 'train';
  /** BIRD's evidence appended to the question, as RB-SQL's retrievers query */
  withEvidence: boolean;
  muPrime: number;
  maxTableTokens: number;
}

/**
 * A curve's options from a variant's knobs or `retriever eval`'s flags (either may be absent or, in a variant, not
 * of the right type: then RB-SQL's defaults, and no evidence). The one place both the planner (looking a curve up)
 * and `retriever eval` (storing one) build them, so the key stored is the key looked up.
 */
export function curveOptionsOf(split: CurveOptions['split'], knobs: { withEvidence?: unknown; muPrime?: unknown; maxTableTokens?: unknown }): CurveOptions {
  return {
    split,
    withEvidence: knobs.withEvidence === true,
    muPrime: typeof knobs.muPrime === 'number' ? knobs.muPrime : RB_SQL_DEFAULTS.muPrime,
    maxTableTokens: typeof knobs.maxTableTokens === 'number' ? knobs.maxTableTokens : RB_SQL_DEFAULTS.maxTableTokens,
  };
}

/** The curve's options as the `retrieval_curves.options_key` that stores them. */
export function curveOptionsKey(o: CurveOptions): string {
  return `split=${o.split};evidence=${o.withEvidence};muPrime=${o.muPrime};maxTableTokens=${o.maxTableTokens}`;
}

/**
 * The thresholds a curve is computed at: -1 (keeps every table) to 32 (a 32-token query's MaxSim ceiling) by 0.25,
 * fine enough that neighbouring points differ by a fraction of a table.
 */
export const CURVE_THRESHOLDS: readonly number[] = [-1, ...Array.from({ length: 129 }, (_, i) => i * 0.25)];

