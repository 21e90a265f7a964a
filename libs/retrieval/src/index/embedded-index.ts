import { existsSync } from 'node:fs';
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RetrievalError } from '../errors';
import { maxSimAt, nonZeroRows, type TokenMatrix } from '../token-matrix';
import type { MaxSimScorer, RegisteredCorpus } from './maxsim-scorer';
import type { IndexedDocument, MultiVectorIndex, RetrievalDocument, ScoredDocument, SearchOptions } from './types';

interface StoredDocument {
  document: RetrievalDocument;
  data: Float32Array;
  rows: number;
}

export const EMBEDDED_DOCUMENTS_FILE = 'documents.jsonl';
export const EMBEDDED_VECTORS_FILE = 'vectors.f32';
/** About 20-40 ms of scoring for column-sized documents on this machine: keeps a worker's event loop responsive. */
const YIELD_EVERY_DOCUMENTS = 200;
const SCORER_MIN_ROWS = 2048;
const SCORER_SPEEDUP = 10;

interface ScorerCorpus {
  order: StoredDocument[];
  registered: Promise<RegisteredCorpus>;
  inFlight: number;
  stale: boolean;
}

function releaseCorpus(corpus: ScorerCorpus): void {
  void corpus.registered.then((registered) => registered.release()).catch(() => undefined);
}

export interface EmbeddedIndexOptions {
  /** score on onnxruntime in a worker thread when a search's candidates hold at least `scorerMinRows` token rows */
  scorer?: MaxSimScorer;
  /**
   * Default 2,048. The scalar kernel's cost grows with the candidates' token rows (times the query's), not with their
   * number: 161 RB-SQL skeleton documents of about 120 rows each took it 38 ms a search, the scorer 3.5 ms. Below this
   * the scalar kernel takes a few milliseconds at most, about what the hop to the scorer thread costs.
   */
  scorerMinRows?: number;
}

/**
 * Exact MaxSim over stored token matrices, in memory; `save`/`load` persist it as JSONL + raw float32.
 * Small candidate sets are scored by the scalar kernel in slices that yield to the event loop; large ones by an
 * optional onnxruntime `MaxSimScorer` thread (same scores, vectorised, off the event loop).
 */
export class EmbeddedMultiVectorIndex implements MultiVectorIndex {
  private readonly documents = new Map<string, StoredDocument>();
  private corpus: ScorerCorpus | null = null;

  constructor(
    readonly dim: number,
    private readonly options: EmbeddedIndexOptions = {},
  ) {}

  private invalidateCorpus(): void {
    const corpus = this.corpus;
    if (!corpus) return;
    this.corpus = null;
    corpus.stale = true;
    if (corpus.inFlight === 0) releaseCorpus(corpus);
  }

  private async scorerScores(query: TokenMatrix): Promise<Map<StoredDocument, number>> {
    const scorer = this.options.scorer as MaxSimScorer;
    if (!this.corpus) {
      const order = [...this.documents.values()];
      this.corpus = { order, registered: scorer.register(this.dim, order), inFlight: 0, stale: false };
    }
    // An upsert during this search replaces the corpus; the old one is released once its searches finish.
    const corpus = this.corpus;
    corpus.inFlight++;
    try {
      const scores = await (await corpus.registered).score(query);
      return new Map(corpus.order.map((doc, i) => [doc, scores[i]]));
    } finally {
      corpus.inFlight--;
      if (corpus.stale && corpus.inFlight === 0) releaseCorpus(corpus);
    }
  }

  /** Releases the shared copy held by the scorer thread (the scorer itself belongs to the caller). */
  async close(): Promise<void> {
    this.invalidateCorpus();
  }

  async upsert(documents: IndexedDocument[]): Promise<void> {
    for (const doc of documents) {
      if (doc.vectors.dim !== this.dim) {
        throw new RetrievalError('INDEX_DIMENSION_MISMATCH', `document ${doc.id}: vectors have dim ${doc.vectors.dim}, index has ${this.dim}`);
      }
      const { vectors, ...document } = doc;
      this.invalidateCorpus();
      this.documents.set(doc.id, { document, data: Float32Array.from(vectors.data.subarray(0, vectors.rows * this.dim)), rows: vectors.rows });
    }
  }

  async count(): Promise<number> {
    return this.documents.size;
  }

  /**
   * The scorer scores the whole corpus, whatever the filter: worth it while the candidates are more than about a
   * tenth of it (it is 10 to 20 times faster per token row than the scalar kernel).
   */
  private scorerPaysFor(candidateRows: number): boolean {
    let corpusRows = 0;
    for (const { rows } of this.documents.values()) corpusRows += rows;
    return candidateRows * SCORER_SPEEDUP >= corpusRows;
  }

  /** Exact search; scores `yieldEvery` documents at a time, yielding to the event loop between slices. */
  async search(query: TokenMatrix, options: SearchOptions = {}): Promise<ScoredDocument[]> {
    if (query.dim !== this.dim) throw new RetrievalError('INDEX_DIMENSION_MISMATCH', `query has dim ${query.dim}, index has ${this.dim}`);
    const activeRows = nonZeroRows(query);
    const tables = options.filter?.tables ? new Set(options.filter.tables) : null;
    const dbId = options.filter?.dbId;
    const minScore = options.minScore ?? -Infinity;
    const candidates = [...this.documents.values()].filter(
      ({ document }) =>
        (dbId === undefined || document.payload.dbId === dbId) &&
        (!tables || (document.payload.table !== undefined && tables.has(document.payload.table))),
    );
    const candidateRows = candidates.reduce((sum, c) => sum + c.rows, 0);
    const results: ScoredDocument[] = [];
    if (this.options.scorer && candidateRows >= (this.options.scorerMinRows ?? SCORER_MIN_ROWS) && this.scorerPaysFor(candidateRows)) {
      const scores = await this.scorerScores(query);
      for (const stored of candidates) {
        const score = scores.get(stored) ?? 0;
        if (score > minScore) results.push({ ...stored.document, score });
      }
    } else {
      let sinceYield = 0;
      for (const { document, data, rows } of candidates) {
        const score = maxSimAt(query, activeRows, data, 0, rows);
        if (score > minScore) results.push({ ...document, score });
        if (++sinceYield === YIELD_EVERY_DOCUMENTS) {
          sinceYield = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    }
    results.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
    return options.topK !== undefined ? results.slice(0, options.topK) : results;
  }

  /**
   * Writes documents.jsonl and vectors.f32 into `dir` (which must exist), asynchronously and in slices so a
   * worker's event loop keeps running during a large save. Returns the number of token rows.
   */
  async save(dir: string): Promise<number> {
    const lines: string[] = [];
    const file = await open(join(dir, EMBEDDED_VECTORS_FILE), 'w');
    let totalRows = 0;
    try {
      for (const { document, data, rows } of [...this.documents.values()]) {
        lines.push(JSON.stringify({ ...document, rows }));
        await file.write(new Uint8Array(data.buffer, data.byteOffset, rows * this.dim * 4));
        totalRows += rows;
      }
    } finally {
      await file.close();
    }
    await writeFile(join(dir, EMBEDDED_DOCUMENTS_FILE), lines.length ? `${lines.join('\n')}\n` : '');
    return totalRows;
  }

  /**
   * Reads an index `save` wrote. The files are read off the event loop: R3's vectors are 200 MB, which a synchronous
   * read held a worker's other jobs behind for a second or more.
   */
  static async load(dir: string, dim: number, options: EmbeddedIndexOptions = {}): Promise<EmbeddedMultiVectorIndex> {
    const documentsPath = join(dir, EMBEDDED_DOCUMENTS_FILE);
    const vectorsPath = join(dir, EMBEDDED_VECTORS_FILE);
    if (!existsSync(documentsPath) || !existsSync(vectorsPath)) {
      throw new RetrievalError('INDEX_NOT_FOUND', `${dir}: missing ${EMBEDDED_DOCUMENTS_FILE} or ${EMBEDDED_VECTORS_FILE}`);
    }
    const [bytes, documentsText] = await Promise.all([readFile(vectorsPath), readFile(documentsPath, 'utf8')]);
    if (bytes.byteLength % (dim * 4) !== 0) throw new RetrievalError('INDEX_CORRUPT', `${vectorsPath}: size ${bytes.byteLength} is not a multiple of ${dim} float32`);
    // Viewed in place rather than copied (R3's corpus is 200 MB): a large file has a buffer of its own, and a small one a
    // slice of Node's pool at an 8-byte offset, so the copy is only for an offset a Float32Array cannot take.
    const all = bytes.byteOffset % 4 === 0
      ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
      : new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const index = new EmbeddedMultiVectorIndex(dim, options);
    let offset = 0;
    documentsText
      .split('\n')
      .forEach((line, i) => {
        if (line.trim() === '') return;
        let parsed: RetrievalDocument & { rows: number };
        try {
          parsed = JSON.parse(line);
        } catch (error) {
          throw new RetrievalError('INDEX_CORRUPT', `${documentsPath}:${i + 1}: ${(error as Error).message}`);
        }
        const { rows, ...document } = parsed;
        if (!Number.isInteger(rows) || offset + rows * dim > all.length) {
          throw new RetrievalError('INDEX_CORRUPT', `${documentsPath}:${i + 1}: rows ${rows} run past the end of ${vectorsPath}`);
        }
        index.documents.set(document.id, { document, data: all.subarray(offset, offset + rows * dim), rows });
        offset += rows * dim;
      });
    if (offset !== all.length) throw new RetrievalError('INDEX_CORRUPT', `${vectorsPath}: ${all.length - offset} floats not claimed by ${documentsPath}`);
    return index;
  }
}
