/**
 * RB-SQL's θ trade-off on a real dataset, for the simulator's tests: tables scored once per item with the bundled
 * encoder, then for each θ the tables RB-SQL's `rb-sql.tables` keeps, the filtered schema its real `rb-sql.columns`
 * stage builds from them, and the prompt its real `rb-sql.generate-plain` stage renders (zero shots).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RB_SQL_DEFAULTS } from '@sqlsweep/contracts';
import type { DatabaseSchema, Dataset, DatasetItem } from '@sqlsweep/datasets';
import type { ChatMessage } from '@sqlsweep/llm';
import { stageImplementations, type RetrievalServices, type StageContext } from '@sqlsweep/pipelines';
import {
  buildIndex,
  buildSchemaIndexes,
  goldTablesOf,
  openIndex,
  TableRetriever,
  type Encoder,
  type ScoredTable,
} from '@sqlsweep/retrieval';

/** `rb-sql.tables`' output (the pipelines lib keeps the type to itself). */
export interface RetrievedTables { tables: ScoredTable[]; fellBack: boolean; metrics: Record<string, number> }
/** `rb-sql.columns`' output: the schema the generation prompt shows. */
export interface FilteredSchema { tables: Array<{ table: string; columns: string[] }>; metrics: Record<string, number> }

/** One dev item with every table of its database scored against its question (best first). */
export interface ScoredItem {
  item: DatasetItem;
  schema: DatabaseSchema;
  gold: ReadonlySet<string>;
  scored: ScoredTable[];
}

/** Scores every table of each dev item's database once (θ is applied afterwards, for free). Items whose gold names no table are left out. */
export async function scoreDevItems(dataset: Dataset, encoder: Encoder, indexRoot: string, datasetVersion: string): Promise<ScoredItem[]> {
  const schemas = new Map(dataset.databases.map((db) => [db.dbId, db]));
  const retrievers = new Map<string, TableRetriever>();
  const out: ScoredItem[] = [];
  for (const item of dataset.items.filter((i) => i.split === 'dev')) {
    const schema = schemas.get(item.dbId);
    if (!schema) throw new Error(`${dataset.root}: item ${item.id} names database ${item.dbId}, which the dataset lacks`);
    let retriever = retrievers.get(item.dbId);
    if (!retriever) {
      const { indexes } = await buildSchemaIndexes(schema, { encoder, indexRoot, datasetVersion });
      retriever = new TableRetriever(encoder, schema, indexes);
      retrievers.set(item.dbId, retriever);
    }
    const gold = goldTablesOf(item.goldSql, schema.tables.map((t) => t.name)).tables;
    if (gold.length === 0) continue;
    out.push({ item, schema, gold: new Set(gold), scored: await retriever.scoreTables(item.question, RB_SQL_DEFAULTS.muPrime) });
  }
  return out;
}

/** What `TableRetriever.retrieveTables` keeps at θ: the tables scoring strictly above it, or the best one alone. */
export function tablesAt(scored: readonly ScoredTable[], theta: number): RetrievedTables {
  const passed = scored.filter((t) => t.score > theta);
  const fellBack = passed.length === 0 && scored.length > 0;
  return { tables: fellBack ? scored.slice(0, 1) : passed, fellBack, metrics: {} };
}

/** Retrieval services over the given encoder, with indexes built under a fresh temporary folder. */
export function localRetrieval(encoder: Encoder, indexRoot = mkdtempSync(join(tmpdir(), 'sqlsweep-theta-sweep-'))): RetrievalServices {
  return {
    encoder: async () => encoder,
    index: async (spec) => (await openIndex(indexRoot, (await buildIndex(spec, { encoder, indexRoot })).key)).index,
    chunks: async (_key, chunk) => chunk(),
  };
}

/** Every stage of the sweep reads only these of its context (item, schema, parameters, inputs, retrieval). */
function stageContext(scored: ScoredItem, datasetVersion: string, retrieval: RetrievalServices, params: StageContext['params'], inputs: Record<string, unknown>): StageContext {
  const { item, schema } = scored;
  const notUsed = (what: string) => () => {
    throw new Error(`the θ sweep's stages do not use ${what}`);
  };
  return {
    item: { itemId: item.id, dbId: item.dbId, question: item.question, evidence: item.evidence ?? null, goldSql: item.goldSql },
    schema,
    params,
    datasetVersion,
    dbPath: schema.sqlitePath,
    semantics: 'spider',
    inputs,
    priority: 'interactive',
    services: {
      sandbox: new Proxy({}, { get: notUsed('the SQL sandbox') }) as StageContext['services']['sandbox'],
      sqlDeadlineMs: 0,
      retrieval,
      dataset: { trainItems: notUsed('the training split'), schema: notUsed('other databases') },
    },
  };
}

/** The filtered schema RB-SQL's `rb-sql.columns` stage builds from the kept tables (columns above μ plus join keys). */
export async function filteredSchema(scored: ScoredItem, tables: RetrievedTables, datasetVersion: string, retrieval: RetrievalServices): Promise<FilteredSchema> {
  const stage = stageImplementations['rb-sql.columns'];
  if (stage?.kind !== 'compute') throw new Error('rb-sql.columns is not a compute stage');
  const ctx = stageContext(scored, datasetVersion, retrieval, { mu: RB_SQL_DEFAULTS.mu, retrievalEvidence: false }, { tables });
  return (await stage.run(ctx)).output as FilteredSchema;
}

/** The messages RB-SQL's `rb-sql.generate-plain` stage sends for this item with this filtered schema and no shots. */
export function generationPrompt(scored: ScoredItem, schema: FilteredSchema, model: string, retrieval: RetrievalServices): ChatMessage[] {
  const stage = stageImplementations['rb-sql.generate-plain'];
  if (stage?.kind !== 'llm') throw new Error('rb-sql.generate-plain is not an LLM stage');
  const params = { model, temperature: 0, maxTokens: 1024, sampleIndex: 0, cacheNamespace: 'theta-sweep' };
  return stage.prompt(stageContext(scored, '', retrieval, params, { schema, shots: undefined })).messages;
}
