import { createHash } from 'node:crypto';
import type { Encoder } from '@sqlsweep/retrieval';

export interface PooledDocument<P> { id: string; text: string; payload: P }
export interface PooledHit<P> { id: string; score: number; payload: P }

/**
 * A single-vector (sentence-encoder) index: one mean-pooled, L2-normalised vector per document, cosine search by
 * exact scan. Its documents are short masked questions, one or two per training item (DR-Chain's skeleton
 * repository, DAIL selection's masked questions), so an exact scan is both the papers' flat search and fast enough.
 */
export class PooledIndex<P> {
  private constructor(private readonly docs: PooledDocument<P>[], private readonly vectors: Float32Array[], private readonly encoder: Encoder) {}

  static async build<P>(encoder: Encoder, docs: PooledDocument<P>[]): Promise<PooledIndex<P>> {
    const vectors = docs.length ? (await encoder.encodePooled(docs.map((d) => d.text), 'document')).map(normalise) : [];
    return new PooledIndex(docs, vectors, encoder);
  }

  get size(): number {
    return this.docs.length;
  }

  /** Every document by descending cosine similarity to `text` (ties by id, so the order is deterministic). */
  async rank(text: string): Promise<PooledHit<P>[]> {
    const [query] = await this.encoder.encodePooled([text], 'document');
    const q = normalise(query!);
    return this.docs
      .map((d, i) => ({ id: d.id, score: dot(q, this.vectors[i]!), payload: d.payload }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function normalise(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v));
  return n > 0 ? v.map((x) => x / n) : v;
}

const built = new Map<string, Promise<PooledIndex<unknown>>>();
const MAX_CACHED = 16;

/**
 * The pooled index of these documents with this encoder, built once per worker process and content hash (every
 * item of a variant retrieves from the same repository).
 */
export function pooledIndexFor<P>(encoder: Encoder, docs: PooledDocument<P>[]): Promise<PooledIndex<P>> {
  const hash = createHash('sha256').update(encoder.fingerprint);
  for (const d of docs) hash.update(`\n${JSON.stringify([d.id, d.text])}`);
  const key = hash.digest('hex');
  let index = built.get(key);
  if (!index) {
    if (built.size >= MAX_CACHED) built.delete(built.keys().next().value!);
    index = PooledIndex.build(encoder, docs);
    index.catch(() => built.delete(key));
    built.set(key, index);
  }
  return index as Promise<PooledIndex<P>>;
}
