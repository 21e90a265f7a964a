import { createHash } from 'node:crypto';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { RetrievalError } from '../errors';
import { nonZeroRows, type TokenMatrix } from '../token-matrix';
import type { IndexedDocument, MultiVectorIndex, RetrievalDocument, ScoredDocument, SearchOptions } from './types';

const MULTI = 'colbert';
const DENSE = 'dense';
const UPSERT_BATCH = 64;

export interface QdrantIndexOptions {
  client: QdrantClient;
  /** one collection per (dataset version, database, document kind, encoder): see qdrantCollectionName */
  collection: string;
  dim: number;
  /** also store a mean-pooled dense vector and use it as an HNSW prefetch before exact MaxSim rescoring */
  densePrefetch?: number;
}

export function qdrantCollectionName(parts: { datasetVersion: string; dbId?: string | null; kind: string; encoderName: string }): string {
  const raw = ['sqlsweep', parts.datasetVersion, parts.dbId ?? 'all', parts.kind, parts.encoderName].join('__');
  return raw.replace(/[^A-Za-z0-9_-]/g, '-');
}

/** Qdrant point ids must be integers or UUIDs: derive a stable UUID from the document id. */
function pointId(documentId: string): string {
  const hex = createHash('sha256').update(documentId).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function rowsOf(matrix: TokenMatrix, onlyRows?: readonly number[]): number[][] {
  const rows = onlyRows ?? Array.from({ length: matrix.rows }, (_, i) => i);
  return rows.map((r) => Array.from(matrix.data.subarray(r * matrix.dim, (r + 1) * matrix.dim)));
}

function meanPooled(matrix: TokenMatrix): number[] {
  const pooled = new Array<number>(matrix.dim).fill(0);
  for (let r = 0; r < matrix.rows; r++) for (let j = 0; j < matrix.dim; j++) pooled[j] += matrix.data[r * matrix.dim + j];
  const norm = Math.hypot(...pooled) || 1;
  return pooled.map((v) => v / norm);
}

/**
 * Qdrant multivector index: a named vector with `comparator: max_sim` and HNSW off (exact MaxSim over the
 * filtered candidates), optional dense vector for prefetch, payload indexes on dbId and table.
 */
export class QdrantMultiVectorIndex implements MultiVectorIndex {
  readonly dim: number;
  private ready: Promise<void> | null = null;

  constructor(private readonly options: QdrantIndexOptions) {
    this.dim = options.dim;
  }

  private ensureCollection(): Promise<void> {
    this.ready ??= (async () => {
      const { client, collection, dim } = this.options;
      const { exists } = await client.collectionExists(collection);
      if (exists) return;
      await client.createCollection(collection, {
        vectors: {
          [MULTI]: { size: dim, distance: 'Dot', multivector_config: { comparator: 'max_sim' }, hnsw_config: { m: 0 } },
          ...(this.options.densePrefetch ? { [DENSE]: { size: dim, distance: 'Cosine' as const } } : {}),
        },
      });
      for (const field of ['dbId', 'table', 'kind']) {
        await client.createPayloadIndex(collection, { field_name: field, field_schema: 'keyword', wait: true });
      }
    })();
    return this.ready;
  }

  async upsert(documents: IndexedDocument[]): Promise<void> {
    await this.ensureCollection();
    for (const doc of documents) {
      if (doc.vectors.dim !== this.dim) throw new RetrievalError('INDEX_DIMENSION_MISMATCH', `document ${doc.id}: vectors have dim ${doc.vectors.dim}, index has ${this.dim}`);
    }
    for (let start = 0; start < documents.length; start += UPSERT_BATCH) {
      const points = documents.slice(start, start + UPSERT_BATCH).map((doc) => ({
        id: pointId(doc.id),
        vector: {
          [MULTI]: rowsOf(doc.vectors),
          ...(this.options.densePrefetch ? { [DENSE]: meanPooled(doc.vectors) } : {}),
        },
        payload: { ...doc.payload, documentId: doc.id, kind: doc.kind, text: doc.text },
      }));
      await this.options.client.upsert(this.options.collection, { wait: true, points });
    }
  }

  async count(): Promise<number> {
    await this.ensureCollection();
    return (await this.options.client.count(this.options.collection, { exact: true })).count;
  }

  async search(query: TokenMatrix, options: SearchOptions = {}): Promise<ScoredDocument[]> {
    await this.ensureCollection();
    const must: { key: string; match: { value: string } | { any: string[] } }[] = [];
    if (options.filter?.dbId !== undefined) must.push({ key: 'dbId', match: { value: options.filter.dbId } });
    if (options.filter?.tables) must.push({ key: 'table', match: { any: [...options.filter.tables] } });
    const total = await this.count();
    const limit = Math.max(1, options.topK ?? total);
    // All-zero query rows add exactly 0 to MaxSim with unit document vectors; Qdrant needs at least one row.
    const active = nonZeroRows(query);
    const response = await this.options.client.query(this.options.collection, {
      query: rowsOf(query, active.length ? active : [0]),
      using: MULTI,
      limit,
      filter: must.length ? { must } : undefined,
      with_payload: true,
      ...(this.options.densePrefetch
        ? { prefetch: { query: meanPooled(query), using: DENSE, limit: Math.max(limit, this.options.densePrefetch), filter: must.length ? { must } : undefined } }
        : {}),
    });
    const minScore = options.minScore ?? -Infinity;
    return response.points
      .filter((point) => point.score > minScore)
      .map((point) => {
        const { documentId, kind, text, ...payload } = (point.payload ?? {}) as Record<string, unknown>;
        return { id: String(documentId), kind: kind as RetrievalDocument['kind'], text: String(text), payload: payload as RetrievalDocument['payload'], score: point.score };
      })
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  }
}
