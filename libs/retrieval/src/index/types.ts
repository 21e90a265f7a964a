import type { TokenMatrix } from '../token-matrix';

export type DocumentKind = 'table' | 'column' | 'sql-skeleton' | 'question-skeleton' | 'rag-chunk';

export type PayloadValue = string | number | boolean | null;

/** A text to index. `payload.dbId` and `payload.table` are what search filters use. */
export interface RetrievalDocument {
  id: string;
  kind: DocumentKind;
  text: string;
  payload: { dbId?: string; table?: string; column?: string } & Record<string, PayloadValue | undefined>;
}

export interface IndexedDocument extends RetrievalDocument {
  vectors: TokenMatrix;
}

export interface SearchFilter {
  dbId?: string;
  /** keep documents whose payload.table is one of these */
  tables?: readonly string[];
}

export interface SearchOptions {
  /** at most this many results, best first (default: all that pass minScore) */
  topK?: number;
  /** keep only scores strictly above this (RB-SQL's θ / μ) */
  minScore?: number;
  filter?: SearchFilter;
}

export interface ScoredDocument extends RetrievalDocument {
  score: number;
}

/** One interface, two implementations (embedded exact MaxSim, Qdrant multivector); both pass index-contract. */
export interface MultiVectorIndex {
  readonly dim: number;
  /** inserts or replaces by id */
  upsert(documents: IndexedDocument[]): Promise<void>;
  search(query: TokenMatrix, options?: SearchOptions): Promise<ScoredDocument[]>;
  count(): Promise<number>;
}
