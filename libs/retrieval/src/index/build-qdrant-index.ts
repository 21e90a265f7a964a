import type { QdrantClient } from '@qdrant/js-client-rest';
import type { Encoder } from '../encoder/encoder';
import { indexKey, type IndexSpec } from './build-index';
import { QdrantMultiVectorIndex, qdrantCollectionName } from './qdrant-index';
import type { IndexedDocument } from './types';

export interface BuildQdrantIndexDeps {
  encoder: Encoder;
  client: QdrantClient;
  /** also store a dense vector for HNSW prefetch with this candidate count */
  densePrefetch?: number;
  chunkSize?: number;
}

export interface BuildQdrantIndexResult {
  key: string;
  collection: string;
  reused: boolean;
  index: QdrantMultiVectorIndex;
}

/**
 * The Qdrant counterpart of buildIndex: one collection per (dataset version, database, document kind, encoder),
 * suffixed by the content key so a changed input gets a fresh collection. A collection already holding every
 * document is reused; a partial one (interrupted build) is completed by idempotent upserts.
 */
export async function buildQdrantIndex(spec: IndexSpec, deps: BuildQdrantIndexDeps): Promise<BuildQdrantIndexResult> {
  const key = indexKey(spec, deps.encoder.fingerprint);
  const collection = `${qdrantCollectionName({ datasetVersion: spec.datasetVersion, dbId: spec.dbId, kind: spec.kind, encoderName: deps.encoder.config.name })}__${key.slice(0, 16)}`;
  const index = new QdrantMultiVectorIndex({ client: deps.client, collection, dim: deps.encoder.dim, densePrefetch: deps.densePrefetch });
  if ((await index.count()) === spec.documents.length) return { key, collection, reused: true, index };
  const chunkSize = deps.chunkSize ?? 256;
  for (let start = 0; start < spec.documents.length; start += chunkSize) {
    const chunk = spec.documents.slice(start, start + chunkSize);
    const matrices = await deps.encoder.encodeDocuments(chunk.map((d) => d.text));
    await index.upsert(chunk.map((doc, i): IndexedDocument => ({ ...doc, vectors: matrices[i] })));
  }
  return { key, collection, reused: false, index };
}
