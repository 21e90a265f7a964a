import { basename } from 'node:path';
import { DOCUMENT_BUILDER_VERSION, ragChunkDocuments, type Encoder, type RetrievalDocument } from '@sqlsweep/retrieval';
import { stagesReading, type ParamsOf } from '../../define-stage';
import { readKeyedFile } from '../../file-knobs';
import type { FileKnob } from '../../pipeline';
import type { RetrievalServices } from '../../stage-context';

/** The corpus is a path knob; the planner hashes the file into `ragCorpusSha256`, which `r3.rag` reads. */
export const ragCorpusKnob = { knob: 'ragCorpus', sha256Param: 'ragCorpusSha256', description: 'the RAG corpus' } as const satisfies FileKnob;

/** The derived parameter the planner adds to R3's knobs: the SHA-256 of the RAG corpus file. */
export type RagCorpusHash = { [K in typeof ragCorpusKnob.sha256Param]: string };

export interface RagChunk { id: string; text: string; score: number }

/** Output of `r3.rag`: the chunks for the item's question, best first. */
export interface RagContext {
  chunks: RagChunk[];
  /** SHA-256 of the corpus the chunks came from (the one the stage was keyed on) */
  corpusSha256: string;
  metrics: Record<string, number>;
}

interface ChunkedCorpus { sha256: string; documents: RetrievalDocument[] }
const chunked = new Map<string, Promise<ChunkedCorpus>>();

/**
 * Reads the corpus the stage was keyed on, and chunks it once per (file content, file name, chunk size, encoder,
 * chunker version) per process, taking the chunks the retrieval services keep on disk when they have them: chunk ids
 * carry the file name. The same documents array goes to every stage of the process (see RetrievalServices.index).
 */
function chunkCorpus(params: Record<string, unknown>, chunkTokens: number, encoder: Encoder, retrieval: RetrievalServices): Promise<ChunkedCorpus> {
  const file = readKeyedFile('r3.rag', ragCorpusKnob, params);
  const sourceId = basename(file.path);
  const cacheKey = `rag-chunks:${file.sha256}:${sourceId}:${chunkTokens}:${encoder.fingerprint}:${DOCUMENT_BUILDER_VERSION}`;
  let corpus = chunked.get(cacheKey);
  if (!corpus) {
    corpus = retrieval.chunks(cacheKey, () => {
      const documents = ragChunkDocuments([{ sourceId, text: file.read().toString('utf8') }], (t) => encoder.countTokens(t), chunkTokens);
      if (documents.length === 0) throw new Error(`r3.rag: the RAG corpus (knob ragCorpus) at ${file.path} holds no text`);
      return documents;
    }).then((documents) => ({ sha256: file.sha256, documents }));
    chunked.set(cacheKey, corpus);
    corpus.catch(() => chunked.delete(cacheKey));
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
export const r3RagStage = stagesReading<ParamsOf<'r3'> & RagCorpusHash>().compute({
  name: 'r3.rag', role: 'retrieval', version: 1, reads: ['ragCorpus', ragCorpusKnob.sha256Param, 'ragChunkTokens', 'ragBudgetTokens'],
  run: async (ctx) => {
    const chunkTokens = ctx.params.ragChunkTokens;
    const encoder = await ctx.services.retrieval.encoder();
    const corpus = await chunkCorpus(ctx.params, chunkTokens, encoder, ctx.services.retrieval);
    const index = await ctx.services.retrieval.index({
      datasetVersion: `corpus:${corpus.sha256}:${chunkTokens}`, dbId: null, kind: 'rag-chunk', builderVersion: DOCUMENT_BUILDER_VERSION, documents: corpus.documents,
    });
    const [query] = await encoder.encodeQueries([ctx.item.question]);
    const hits = await index.search(query, { topK: ragTopK(ctx.params.ragBudgetTokens, chunkTokens) });
    const output: RagContext = {
      chunks: hits.map((h) => ({ id: h.id, text: h.text, score: Math.round(h.score * 1e4) / 1e4 })),
      corpusSha256: corpus.sha256,
      metrics: { 'rag.chunks': hits.length },
    };
    return { output };
  },
});

/** The "Contextual Information" section, or nothing when the stage gets no RAG context. */
export function contextSection(rag: RagContext | undefined): string {
  if (!rag || rag.chunks.length === 0) return '';
  return `#### Contextual Information:\n${rag.chunks.map((c) => `- ${c.text}`).join('\n')}\n\n`;
}
