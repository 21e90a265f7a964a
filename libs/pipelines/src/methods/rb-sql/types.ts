import type { PipelineKnobs } from '@sqlsweep/contracts';
import type { DatabaseSchema } from '@sqlsweep/datasets';

/** Output of `rb-sql.tables` (Table-Retriever). */
export interface RetrievedTables {
  tables: Array<{ table: string; score: number; shortenedTo?: string[] }>;
  /** true when no table passed θ and the best-scoring one was kept so the prompt has a schema at all */
  fellBack: boolean;
  /** Set only when a test fault switch broke the retriever on purpose (`StageFaults.tableRetriever`). */
  testFault?: 'wrong-tables';
  metrics: Record<string, number>;
}

/** Output of `rb-sql.columns` (Column-Retriever): the filtered schema the prompts show. */
export interface FilteredSchema {
  tables: Array<{ table: string; columns: string[] }>;
  metrics: Record<string, number>;
}

/** One few-shot example from the train split. */
export interface Shot {
  itemId: string;
  dbId: string;
  question: string;
  evidence: string | null;
  sql: string;
  skeleton: string;
  /** MaxSim of the target question against the skeleton (skeleton selection only). */
  score?: number;
}

/** Output of `rb-sql.shots`. */
export interface SelectedShots { selection: PipelineKnobs<'rb-sql'>['shotSelection']; shots: Shot[] }

/** Output of `rb-sql.decompose-<i>`: the least-to-most sub-questions of shot i. */
export interface ShotDecomposition { itemId: string; subQuestions: string[]; parseError?: string }

/** A SQL prediction moving along the generation / correction chain. */
export interface ChainSql {
  sql: string | null;
  parseError?: string;
  /** the chain stopped (executed without error and non-empty): later steps pass it through */
  stopped?: boolean;
  /** LLM correction rounds made so far */
  attempts?: number;
  /** later rounds show the full schema (the LLM said items were missing, or the round limit was reached) */
  fullSchema?: boolean;
  /** this answer was written with the full schema in view */
  fullSchemaShown?: boolean;
  /** this answer said the schema it was shown lacked tables or columns (`signalsMissingSchema`) */
  missingSchema?: boolean;
  /** rule-based corrections applied so far (`applyRuleFixes`), in order */
  ruleFixes?: string[];
  metrics?: Record<string, number>;
}

/** Error classes of RB-SQL's error correction; the first four are sent back for correction. */
export type RbSqlErrorClass = 'syntax' | 'schema-linking' | 'internal' | 'empty' | 'none';

/** Output of `rb-sql.check-<r>`: the previous prediction executed. */
export interface ExecutionCheck {
  previous: ChainSql;
  needsCorrection: boolean;
  errorClass: RbSqlErrorClass;
  feedback: string;
}

/** The part of a database schema a filtered schema keeps (every column of a kept table when `columns` is null). */
export function subSchema(schema: DatabaseSchema, keep: FilteredSchema | undefined): DatabaseSchema {
  if (!keep) return schema;
  const byTable = new Map(keep.tables.map((t) => [t.table, new Set(t.columns)]));
  return {
    ...schema,
    tables: schema.tables.filter((t) => byTable.has(t.name)).map((t) => ({ ...t, columns: t.columns.filter((c) => byTable.get(t.name)!.has(c.name)) })),
  };
}
