import { RB_SQL_DEFAULTS } from '@sqlsweep/contracts';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import { tableText } from '../documents/builders';
import type { Encoder } from '../encoder/encoder';
import type { MultiVectorIndex, ScoredDocument } from '../index/types';
import { maxSim, type TokenMatrix } from '../token-matrix';


export interface SchemaIndexes {
  /** table documents of this database (kind 'table') */
  tables: MultiVectorIndex;
  /** column documents of this database (kind 'column') */
  columns: MultiVectorIndex;
}

export interface ScoredTable {
  table: string;
  score: number;
  /** set for a large table: the columns kept by the μ' pre-filter, whose shortened text was scored */
  shortenedTo?: string[];
}

/** What TR keeps for a question: the tables above θ, or the best one alone when none passes (`fellBack`). */
export interface RetrievedTableSet {
  tables: ScoredTable[];
  fellBack: boolean;
}

export interface TableRetrieverOptions {
  /** a table text over this many tokens triggers the large-table rule (default 512, BERT's limit) */
  maxTableTokens?: number;
}

/**
 * RB-SQL's Table-Retriever (TR) with its Column-Retriever (CR) over one database. Scores are MaxSim of the
 * question against each table text; tables whose text exceeds `maxTableTokens` are first shortened to the
 * columns scoring above μ' and the shortened text is scored instead (RB-SQL 4.2.3).
 */
export class TableRetriever {
  private readonly largeTables: Set<string>;

  constructor(
    private readonly encoder: Encoder,
    private readonly database: DatabaseSchema,
    private readonly indexes: SchemaIndexes,
    options: TableRetrieverOptions = {},
  ) {
    const limit = options.maxTableTokens ?? RB_SQL_DEFAULTS.maxTableTokens;
    this.largeTables = new Set(database.tables.filter((t) => encoder.countTokens(tableText(t.name, t.columns)) > limit).map((t) => t.name));
  }

  isLarge(table: string): boolean {
    return this.largeTables.has(table);
  }

  async encodeQuestion(question: string): Promise<TokenMatrix> {
    return (await this.encoder.encodeQueries([question]))[0];
  }

  /** Every table of the database with its score, best first (score once, then apply any θ). */
  async scoreTables(question: string | TokenMatrix, muPrime: number = RB_SQL_DEFAULTS.muPrime): Promise<ScoredTable[]> {
    const query = typeof question === 'string' ? await this.encodeQuestion(question) : question;
    const dbId = this.database.dbId;
    const scored: ScoredTable[] = (await this.indexes.tables.search(query, { filter: { dbId } }))
      .filter((doc) => doc.payload.table !== undefined && !this.largeTables.has(doc.payload.table))
      .map((doc) => ({ table: doc.payload.table as string, score: doc.score }));
    for (const table of this.largeTables) {
      const kept = await this.indexes.columns.search(query, { filter: { dbId, tables: [table] }, minScore: muPrime });
      const schema = this.database.tables.find((t) => t.name === table);
      const keptNames = new Set(kept.map((c) => c.payload.column));
      const columns = (schema?.columns ?? []).filter((c) => keptNames.has(c.name));
      const [shortened] = await this.encoder.encodeDocuments([tableText(table, columns)]);
      scored.push({ table, score: maxSim(query, shortened), shortenedTo: columns.map((c) => c.name) });
    }
    return scored.sort((a, b) => b.score - a.score || a.table.localeCompare(b.table));
  }

  /**
   * TR (RB-SQL 4.2.1, 4.2.3): tables scoring strictly above θ, best first, large tables scored shortened to their
   * columns above μ'. When no table passes θ the best one is kept and `fellBack` is set (the paper does not say; an
   * empty schema would make generation pointless).
   */
  async retrieveTables(question: string | TokenMatrix, theta: number = RB_SQL_DEFAULTS.theta, muPrime: number = RB_SQL_DEFAULTS.muPrime): Promise<RetrievedTableSet> {
    const scored = await this.scoreTables(question, muPrime);
    const passed = scored.filter((t) => t.score > theta);
    const fellBack = passed.length === 0 && scored.length > 0;
    return { tables: fellBack ? scored.slice(0, 1) : passed, fellBack };
  }

  /** CR: columns of the given tables scoring strictly above μ. */
  async retrieveColumns(question: string | TokenMatrix, tables: readonly string[], mu: number = RB_SQL_DEFAULTS.mu): Promise<ScoredDocument[]> {
    const query = typeof question === 'string' ? await this.encodeQuestion(question) : question;
    return this.indexes.columns.search(query, { filter: { dbId: this.database.dbId, tables }, minScore: mu });
  }
}
