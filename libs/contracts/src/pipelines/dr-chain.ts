import { z } from 'zod';
import { grid } from './grid';

/** The most revision iterations one DR-Chain variant may unroll (its steps are stage definitions). */
export const DR_CHAIN_MAX_REVISIONS = 8;

/** DR-Chain (seed 004) knobs with the paper defaults (§4.1.1); N_max is not given by the paper (Fig. 3 shows 1-3). */
export const drChainGrids = {
  'dr-chain': z.strictObject({
    /** Ablation "w/o simplify": no LLM simplification, online or in the repository. */
    simplification: grid.booleans().default([true]),
    /** Ablation "w/o revise": the first generated SQL is final. */
    revision: grid.booleans().default([true]),
    /** Samples retrieved by the original question's skeleton. */
    k1: grid.integers(0, 32).default([4]),
    /** Samples retrieved by the simplified question's skeleton (by the original one when simplification is off). */
    k2: grid.integers(0, 32).default([4]),
    /** N_max: most revision iterations. */
    maxRevisions: grid.integers(1, DR_CHAIN_MAX_REVISIONS).default([3]),
    /** Temperature of generation and revision (paper 0.5). */
    temperature: grid.numbers(0, 2).default([0.5]),
    /** Temperature of question simplification (paper 1.0). */
    simplifyTemperature: grid.numbers(0, 2).default([1]),
    /** Distinct values shown per column the previous SQL touches (related database contents). */
    contentValues: grid.integers(0, 50).default([5]),
    maxTokens: grid.integers(16).default([512]),
  }),
};
