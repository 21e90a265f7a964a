import { z } from 'zod';
import { grid } from './grid';

/**
 * R3's default RAG corpus, relative to the default corpus directory `data`: general-knowledge text (WordNet's noun
 * glosses) that set-up builds from the Debian package wordnet-base (scripts/rag-corpus.ts). Like the paper's
 * Wikipedia it knows nothing of the benchmark's databases, so RAG adds context without schema hints.
 */
export const R3_DEFAULT_RAG_CORPUS = 'rag/wordnet-noun-glosses.txt';

/**
 * The schema-description corpus shipped with minibench (data/minibench/rag/minibench.txt): prose written from the
 * databases' column descriptions. A named option only: it hands the model near-oracle schema hints, so RAG with it
 * measures something the paper did not.
 */
export const R3_SCHEMA_DESCRIPTION_RAG_CORPUS = 'minibench/rag/minibench.txt';

/**
 * R3 (Reasoning with Rethinking and Retrieval): schema linking, question decomposition, generation, RAG context.
 * Defaults are the paper's: temperature 0, chunks of 50 tokens, a 300-token budget, RAG on linking and decomposition.
 * Table 3 ablations: schemaLinking=false (No SL), decomposition=false (No QD), rag=false (No RAG).
 */
export const r3Grids = {
  r3: z.strictObject({
    temperature: grid.numbers(0, 2).default([0]),
    maxTokens: grid.integers(16).default([512]),
    schemaLinking: grid.booleans().default([true]),
    decomposition: grid.booleans().default([true]),
    rag: grid.booleans().default([true]),
    /**
     * Path of the text corpus, relative to the corpus directory (SQLSWEEP_CORPUS_DIR, default `data`) and inside it.
     * A file knob: the planner hashes the file, and its content, not only its path, enters the RAG stage's key.
     */
    ragCorpus: z.array(z.string({ error: 'expected a file path' }).min(1, 'expected a file path'), { error: 'expected array of file paths' })
      .min(1, 'give at least one value').default([R3_DEFAULT_RAG_CORPUS]),
    ragChunkTokens: grid.integers(1, 512).default([50]),
    ragBudgetTokens: grid.integers(1, 100_000).default([300]),
    /** Which prompts get the "Contextual Information" section (paper: linking and decomposition, not generation). */
    ragInLinking: grid.booleans().default([true]),
    ragInDecomposition: grid.booleans().default([true]),
    ragInGeneration: grid.booleans().default([false]),
    /** Similarity (mean of character-bigram Jaccard and normalised edit similarity) a hallucinated name needs to map to a table. */
    linkMatchThreshold: grid.numbers(0, 1).default([0.5]),
  }),
};
