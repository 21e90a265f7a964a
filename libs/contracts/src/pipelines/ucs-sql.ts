import { z } from 'zod';
import { grid } from './grid';

/**
 * UCS-SQL knobs (paper defaults: temperature 0.1, θ1 = 2, θ2 = 3, SS-QE 5-shot, every stage on). The boolean
 * switches are the ablations of the paper's Table 3; `shotSelection: dail` is its Table 5.
 */
export const ucsSqlGrids = {
  'ucs-sql': z.strictObject({
    temperature: grid.numbers(0, 2).default([0.1]),
    maxTokens: grid.integers(16).default([512]),
    /** MAC-SQL-style selector pruning the schema into a sub-database when it has more columns than this. */
    preselect: grid.booleans().default([true]),
    preselectAboveColumns: grid.integers(0).default([30]),
    /** Question stage + transitional stage (false = "without question & transitional stages"). */
    questionTransitional: grid.booleans().default([true]),
    /** Transitional stage (false = "without transitional stage": the question stage's terms go to the SQL stage). */
    transitional: grid.booleans().default([true]),
    contentPipe: grid.booleans().default([true]),
    structurePipe: grid.booleans().default([true]),
    /** SQL stage as skeleton then filling (false = "without SQL stage": one direct generation). */
    sqlStage: grid.booleans().default([true]),
    shots: grid.integers(0, 20).default([5]),
    /** 'fixed': the first k training questions; 'dail': DAIL-SQL's selection (Gao et al. 2024), the paper's Table 5. */
    shotSelection: grid.choices(['ss-qe', 'fixed', 'dail'] as const).default(['ss-qe']),
    theta1: grid.integers(0).default([2]),
    theta2: grid.integers(1).default([3]),
    /** DAIL's τ: candidates whose SQL skeleton is at least this similar to the draft's come first (read by 'dail' only). */
    dailThreshold: grid.numbers(0, 1).default([0.9]),
  }),
};
