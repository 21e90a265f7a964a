import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { DOCUMENT_BUILDER_VERSION, ragChunkDocuments, type Encoder, type RetrievalDocument } from '@sqlsweep/retrieval';
import type { ComputeStage } from '../../stage-context';

export interface RagChunk { id: string; text: string; score: number }

/** Output of `r3.rag`: the chunks for the item's question, best first. */
export interface RagContext {
  chunks: RagChunk[];
  /** content hash of the corpus the chunks came from (the knob is a path; this records what it held) */
  corpusSha256: string;
  metrics: Record<string, number>;
}

interface ChunkedCorpus { sha256: string; documents: RetrievalDocument[] }
const chunked = new Map<string, ChunkedCorpus>();

/** Reads and chunks the corpus once per (file content, chunk size, encoder) per process. */
function chunkCorpus(path: string, chunkTokens: number, encoder: Encoder): ChunkedCorpus {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`r3.rag: cannot read the RAG corpus (knob ragCorpus) at ${path}: ${(e as Error).message}`);
  }
  const sha256 = createHash('sha256').update(text).digest('hex');
  const cacheKey = `${sha256}:${chunkTokens}:${encoder.fingerprint}`;
  let corpus = chunked.get(cacheKey);
  if (!corpus) {
    const documents = ragChunkDocuments([{ sourceId: basename(path), text }], (t) => encoder.countTokens(t), chunkTokens);
    if (documents.length === 0) throw new Error(`r3.rag: the RAG corpus (knob ragCorpus) at ${path} holds no text`);
    corpus = { sha256, documents };
    chunked.set(cacheKey, corpus);
  }
  return corpus;
}

/** Top-K chunks with K = budget / chunk size (R3 3.4); the question is the query. */
export function ragTopK(budgetTokens: number, chunkTokens: number): number {
  return Math.max(1, Math.floor(budgetTokens / chunkTokens));
}

/**
 * R3's RAG: the corpus split into chunks of `ragChunkTokens` encoder tokens, indexed once per content hash with the
 * configured late-interaction encoder (the paper used a pooled BERT embedding in FAISS), searched with the question.
 */
export const r3RagStage: ComputeStage = {
  kind: 'compute',
  run: async (ctx) => {
    const path = resolve(String(ctx.params.ragCorpus));
    const chunkTokens = Number(ctx.params.ragChunkTokens);
    const encoder = await ctx.services.retrieval.encoder();
    const corpus = chunkCorpus(path, chunkTokens, encoder);
    const index = await ctx.services.retrieval.index({
      datasetVersion: `corpus:${corpus.sha256}:${chunkTokens}`, dbId: null, kind: 'rag-chunk', builderVersion: DOCUMENT_BUILDER_VERSION, documents: corpus.documents,
    });
    const [query] = await encoder.encodeQueries([ctx.item.question]);
    const hits = await index.search(query, { topK: ragTopK(Number(ctx.params.ragBudgetTokens), chunkTokens) });
    const output: RagContext = {
      chunks: hits.map((h) => ({ id: h.id, text: h.text, score: Math.round(h.score * 1e4) / 1e4 })),
      corpusSha256: corpus.sha256,
      metrics: { 'rag.chunks': hits.length },
    };
    return { output };
  },
};

/** The "Contextual Information" section, or nothing when the stage gets no RAG context. */
export function contextSection(rag: RagContext | undefined): string {
  if (!rag || rag.chunks.length === 0) return '';
  return `#### Contextual Information:\n${rag.chunks.map((c) => `- ${c.text}`).join('\n')}\n\n`;
}
