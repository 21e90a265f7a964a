import type { ColumnSchema, DatabaseSchema, TableSchema } from '@sqlsweep/datasets';
import { RetrievalError } from '../errors';
import type { RetrievalDocument } from '../index/types';

/**
 * Bump when any text below changes, or a chunk's boundaries, id or payload: index keys include it, so indexes are
 * rebuilt, and so do the keys of chunks kept on disk (cachedChunks), which would otherwise be served as they were.
 */
export const DOCUMENT_BUILDER_VERSION = 1;

/** RB-SQL table text: `name: n | c1: ty1 | c2: ty2 | ...` (METHODS.md, RB-SQL 4.2.1). */
export function tableText(tableName: string, columns: readonly Pick<ColumnSchema, 'name' | 'type'>[]): string {
  return [`name: ${tableName}`, ...columns.map((c) => `${c.name}: ${c.type || 'text'}`.trim())].join(' | ');
}

/** RB-SQL column text: `t_name || c_name: c_desc [e1, .., ei] v_desc k` (RB-SQL 4.2.2). */
export function columnText(tableName: string, column: ColumnSchema, knowledge?: string): string {
  const examples = column.sampleValues.length ? `[${column.sampleValues.map(String).join(', ')}]` : '';
  const parts = [column.description, examples, column.valueDescription, knowledge].map((p) => (p ?? '').trim()).filter(Boolean);
  return `${tableName} || ${column.name}: ${parts.join(' ')}`.trim();
}

export const tableDocumentId = (dbId: string, table: string) => `${dbId}.${table}`;
export const columnDocumentId = (dbId: string, table: string, column: string) => `${dbId}.${table}.${column}`;

export function tableDocuments(database: DatabaseSchema): RetrievalDocument[] {
  return database.tables.map((table: TableSchema) => ({
    id: tableDocumentId(database.dbId, table.name),
    kind: 'table',
    text: tableText(table.name, table.columns),
    payload: { dbId: database.dbId, table: table.name },
  }));
}

export function columnDocuments(database: DatabaseSchema): RetrievalDocument[] {
  return database.tables.flatMap((table) =>
    table.columns.map((column): RetrievalDocument => ({
      id: columnDocumentId(database.dbId, table.name, column.name),
      kind: 'column',
      text: columnText(table.name, column),
      payload: { dbId: database.dbId, table: table.name, column: column.name },
    })),
  );
}

export interface TrainingPair {
  itemId: string;
  dbId: string;
  question: string;
  sql: string;
}

/**
 * One document per training SQL: its skeleton (RB-SQL SR candidates). The skeletoniser is passed in so the
 * project has one SQL skeleton implementation (the datasets library's) shared with the prompts.
 */
export function sqlSkeletonDocuments(pairs: readonly TrainingPair[], skeletonize: (sql: string, dbId: string) => string): RetrievalDocument[] {
  return pairs.map((pair) => ({
    id: `sql-skeleton:${pair.itemId}`,
    kind: 'sql-skeleton',
    text: skeletonize(pair.sql, pair.dbId),
    payload: { dbId: pair.dbId, itemId: pair.itemId, question: pair.question, sql: pair.sql },
  }));
}

export interface QuestionSkeletonEntry extends TrainingPair {
  /** DR-Chain stores both the original and the LLM-simplified question's skeleton */
  variant: 'original' | 'simplified';
  skeleton: string;
}

export function questionSkeletonDocuments(entries: readonly QuestionSkeletonEntry[]): RetrievalDocument[] {
  return entries.map((entry) => ({
    id: `question-skeleton:${entry.variant}:${entry.itemId}`,
    kind: 'question-skeleton',
    text: entry.skeleton,
    payload: { dbId: entry.dbId, itemId: entry.itemId, variant: entry.variant, question: entry.question, sql: entry.sql },
  }));
}

export interface CorpusText {
  /** e.g. file name; chunk ids are `<sourceId>#<n>` */
  sourceId: string;
  text: string;
}

/**
 * R3's RAG corpus: consecutive chunks of at most `chunkTokens` encoder tokens (default 50), cut at word
 * boundaries so every chunk is readable text; a single word longer than the budget forms its own chunk. Each distinct
 * word is counted once: a corpus repeats its words, and counting them one by one was most of R3's first search.
 */
export function ragChunkDocuments(corpus: readonly CorpusText[], countTokens: (text: string) => number, chunkTokens = 50): RetrievalDocument[] {
  if (!Number.isInteger(chunkTokens) || chunkTokens < 1) throw new RetrievalError('DATASET_INVALID', `chunkTokens must be a positive integer, got ${chunkTokens}`);
  const documents: RetrievalDocument[] = [];
  const counts = new Map<string, number>();
  for (const source of corpus) {
    let words: string[] = [];
    let tokens = 0;
    let n = 0;
    const flush = () => {
      if (words.length === 0) return;
      documents.push({ id: `${source.sourceId}#${n}`, kind: 'rag-chunk', text: words.join(' '), payload: { source: source.sourceId, chunk: n, tokens } });
      words = [];
      tokens = 0;
      n++;
    };
    for (const word of source.text.split(/\s+/).filter(Boolean)) {
      let count = counts.get(word);
      if (count === undefined) counts.set(word, (count = countTokens(word)));
      if (tokens + count > chunkTokens) flush();
      words.push(word);
      tokens += count;
    }
    flush();
  }
  return documents;
}
