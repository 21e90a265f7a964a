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
    /** MAC-SQL's selector (the paper's pre-processing): prunes tables and columns into a sub-database. */
    preselect: grid.booleans().default([true]),
    /**
     * The selector runs when the schema has more columns than this, or more than `preselectAboveAverageColumns` per
     * table (MAC-SQL's trigger: it leaves a database alone only at <= 6 columns per table on average and <= 30 in all).
     * 0 runs it on every schema.
     */
    preselectAboveColumns: grid.integers(0).default([30]),
    /** MAC-SQL's other trigger: the (floored) average number of columns per table above which the selector runs. */
    preselectAboveAverageColumns: grid.integers(0).default([6]),
    /** Question stage + transitional stage (false = "without question & transitional stages"). */
    questionTransitional: grid.booleans().default([true]),
    /** Transitional stage (false = "without transitional stage": the question stage's terms go to the SQL stage). */
    transitional: grid.booleans().default([true]),
    contentPipe: grid.booleans().default([true]),
    /**
     * Not in the paper (default off): the code adds to the content pipe's LLM answers the schema names occurring
     * verbatim in the question or named exactly by a content term, the declared foreign keys joining the chosen
     * tables, and the primary key of a table named without a column. This grows the identifier count |I| that SS-QE's
     * θ2 reads.
     */
    linkingCodeAdditions: grid.booleans().default([false]),
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
