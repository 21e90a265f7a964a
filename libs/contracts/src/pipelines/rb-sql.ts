import { z } from 'zod';
import { grid } from './grid';

/** The most shots (and so decomposition stages) one RB-SQL variant may ask for. */
export const RB_SQL_MAX_SHOTS = 8;
/** The most error-correction rounds one RB-SQL variant may unroll. */
export const RB_SQL_MAX_CORRECTIONS = 8;

/**
 * RB-SQL's retrieval thresholds by default (METHODS.md): θ = 13 and μ = 5 for a BERT-size ColBERT with 32 query
 * tokens; the paper names no value for μ' ("a smaller threshold"): below μ, so that shortening keeps generously.
 */
export const RB_SQL_DEFAULTS = { theta: 13, mu: 5, muPrime: 3, maxTableTokens: 512 } as const;

/**
 * RB-SQL knobs with the paper defaults (docs/methods/rb-sql.md). θ and μ are MaxSim thresholds for a BERT-size
 * ColBERT: the bundled lexical encoder scores on a smaller scale, so they keep fewer items with it. θ may therefore
 * be given as the operating point it stands for (`{ recall: 0.9 }`), which the planner maps to this encoder's θ
 * on the run's dataset; the paper configs do that.
 */
export const rbSqlGrids = {
  'rb-sql': z.strictObject({
    /**
     * Table-Retriever threshold θ: keep tables with S(q, t) > θ. A number (the paper's 13 is for its fine-tuned
     * ColBERT) or an operating point: `{ recall: r }` = the largest θ whose table recall on the run's dataset is
     * at least r; `{ reduction: x }` = the smallest θ that filters out at least x of the non-gold tables.
     */
    theta: grid.thresholds(-1000, 1000).default([RB_SQL_DEFAULTS.theta]),
    /** Column-Retriever threshold μ: keep columns of the kept tables with S(q, c) > μ. */
    mu: grid.numbers(-1000, 1000).default([RB_SQL_DEFAULTS.mu]),
    /** μ': the smaller column threshold that shortens a table whose text exceeds maxTableTokens before TR scores it. */
    muPrime: grid.numbers(-1000, 1000).default([RB_SQL_DEFAULTS.muPrime]),
    maxTableTokens: grid.integers(1).default([RB_SQL_DEFAULTS.maxTableTokens]),
    /**
     * Whether TR and CR score the question with BIRD's evidence appended. The paper's retrievers encode the
     * question q alone (4.2; 32 query tokens); the evidence K reaches only the generation prompt. `true` is our
     * variant, for encoders that benefit from the evidence's column names and values.
     */
    retrievalEvidence: grid.booleans().default([false]),
    /** k: few-shot examples. */
    shots: grid.integers(0, RB_SQL_MAX_SHOTS).default([3]),
    /** Table 4 switches. */
    schemaFilter: grid.booleans().default([true]),
    skeletonOrganization: grid.booleans().default([true]),
    shotSelection: grid.choices(['skeleton', 'random', 'fixed'] as const).default(['skeleton']),
    errorCorrection: grid.booleans().default([true]),
    /**
     * LLM error-correction rounds. The paper says only "up to specific rounds"; the authors' released code
     * (wuzhenhe/RB-SQL, full_rb_sql/main.py) uses MAX_NUMS = 3 (2 in its Spider run).
     */
    maxCorrections: grid.integers(0, RB_SQL_MAX_CORRECTIONS).default([3]),
    /**
     * Rounds after which the filtered schema is replaced by the full schema ("after multi iterations", appendix A).
     * The authors' code swaps it in from round r >= 0.8 * MAX_NUMS: after 2 of 3 rounds (after 1 of 2 on Spider).
     */
    fullSchemaAfter: grid.integers(0, RB_SQL_MAX_CORRECTIONS).default([2]),
    temperature: grid.numbers(0, 2).default([0.1]),
    maxTokens: grid.integers(16).default([1024]),
  }),
};
