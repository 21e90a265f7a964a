import type { DatabaseSchema } from '@sqlsweep/datasets';
import { columnDocuments, DOCUMENT_BUILDER_VERSION, TableRetriever, tableDocuments, type SchemaIndexes } from '@sqlsweep/retrieval';
import { from, stagesOf } from '../../define-stage';
import type { StageContext } from '../../stage-context';
import { linkingMetricEntries, linkingMetrics } from '../../sql/linking';
import { touchedSchema } from '../../sql/touched';
import type { FilteredSchema, RetrievedTables } from './types';

type RetrieverContext = Pick<StageContext, 'datasetVersion' | 'schema' | 'services'>;

async function schemaIndexes(ctx: RetrieverContext): Promise<SchemaIndexes> {
  const common = { datasetVersion: ctx.datasetVersion, dbId: ctx.schema.dbId, builderVersion: DOCUMENT_BUILDER_VERSION };
  const [tables, columns] = await Promise.all([
    ctx.services.retrieval.index({ ...common, kind: 'table', documents: tableDocuments(ctx.schema) }),
    ctx.services.retrieval.index({ ...common, kind: 'column', documents: columnDocuments(ctx.schema) }),
  ]);
  return { tables, columns };
}

/** `maxTableTokens` only matters to TR's large-table rule; CR, which does not read it, leaves it out. */
async function retriever(ctx: RetrieverContext, maxTableTokens?: number): Promise<TableRetriever> {
  const encoder = await ctx.services.retrieval.encoder();
  return new TableRetriever(encoder, ctx.schema, await schemaIndexes(ctx), maxTableTokens === undefined ? {} : { maxTableTokens });
}

/**
 * The text the retrievers score: the question alone, as in the paper (4.2), or with BIRD's evidence appended when
 * `retrievalEvidence` asks for it and the item has one.
 */
export function retrievalQuery(ctx: Pick<StageContext, 'item'> & { params: { retrievalEvidence: boolean } }): string {
  return ctx.params.retrievalEvidence && ctx.item.evidence ? `${ctx.item.question} ${ctx.item.evidence}` : ctx.item.question;
}

function ratio(kept: number, total: number): number {
  return total === 0 ? 0 : 1 - kept / total;
}

const rbSql = stagesOf('rb-sql');

type Retrieved = Awaited<ReturnType<TableRetriever['retrieveTables']>>;

/**
 * The test fault `wrong-tables` (`StageFaults.tableRetriever`): as many tables as the retriever kept, but none the
 * gold SQL uses (schema order, deterministic), each with the score of the table it replaces; a database whose every
 * table is gold loses its first gold table instead.
 */
function wrongTables(retrieved: Retrieved, schema: DatabaseSchema, gold: ReadonlySet<string>): Retrieved {
  const others = schema.tables.map((t) => t.name).filter((t) => !gold.has(t));
  const names = others.length > 0
    ? others.slice(0, Math.max(1, retrieved.tables.length))
    : schema.tables.map((t) => t.name).filter((t) => t !== [...gold][0]);
  return { fellBack: retrieved.fellBack, tables: names.map((table, i) => ({ table, score: retrieved.tables[i]?.score ?? 0 })) };
}

/**
 * Table-Retriever (RB-SQL 4.2.1, 4.2.3): `TableRetriever.retrieveTables` (tables with S(q, t) > θ, a table over
 * maxTableTokens first shortened to its columns above μ', the best one alone when none passes), with its recall
 * against the tables the gold SQL touches.
 */
export const retrieveTablesStage = rbSql.compute({
  name: 'rb-sql.tables', role: 'retrieval', version: 2, reads: ['theta', 'muPrime', 'maxTableTokens', 'retrievalEvidence'],
  run: async (ctx) => {
    const tr = await retriever(ctx, ctx.params.maxTableTokens);
    const retrieved = await tr.retrieveTables(retrievalQuery(ctx), ctx.params.theta, ctx.params.muPrime);
    const gold = new Set(touchedSchema(ctx.item.goldSql, ctx.schema).tables);
    const fault = ctx.services.faults?.tableRetriever;
    const { tables: kept, fellBack } = fault === 'wrong-tables' ? wrongTables(retrieved, ctx.schema, gold) : retrieved;
    const hits = kept.filter((t) => gold.has(t.table)).length;
    const output: RetrievedTables = {
      tables: kept.map((t) => ({ table: t.table, score: t.score, ...(t.shortenedTo ? { shortenedTo: t.shortenedTo } : {}) })),
      fellBack,
      ...(fault ? { testFault: fault } : {}),
      metrics: {
        'rb-sql.tables.recall': gold.size === 0 ? 1 : hits / gold.size,
        'rb-sql.tables.reduction': ratio(kept.length, ctx.schema.tables.length),
        'rb-sql.tables.kept': kept.length,
      },
    };
    return { output };
  },
});

/** Columns a join needs even when CR scores them low: primary keys and foreign keys among the kept tables. */
function joinColumns(schema: DatabaseSchema, table: string, kept: ReadonlySet<string>): string[] {
  const t = schema.tables.find((x) => x.name === table);
  return (t?.columns ?? []).filter((c) => c.primaryKey || (c.references !== undefined && kept.has(c.references.table))).map((c) => c.name);
}

/**
 * Column-Retriever (RB-SQL 4.2.2): columns of the kept tables with S(q, c) > μ, plus each kept table's primary and
 * foreign keys (our choice: the paper is silent on joins, and a schema without join keys cannot be joined). A kept
 * table with no column at all keeps its best-scoring one. Records schema-linking P/R/F1 against the gold SQL.
 */
export const retrieveColumnsStage = rbSql.compute({
  name: 'rb-sql.columns', role: 'retrieval', version: 2, reads: ['mu', 'retrievalEvidence'], inputs: { tables: from(retrieveTablesStage) },
  run: async (ctx) => {
    const tables = ctx.inputs.tables.tables.map((t) => t.table);
    const tr = await retriever(ctx);
    const query = await tr.encodeQuestion(retrievalQuery(ctx));
    const scored = await tr.retrieveColumns(query, tables, -Infinity);
    const { mu } = ctx.params;
    const keptTables = new Set(tables);
    const filtered: FilteredSchema['tables'] = ctx.schema.tables.filter((t) => keptTables.has(t.name)).map((t) => {
      const own = scored.filter((d) => d.payload.table === t.name);
      const passed = new Set(own.filter((d) => d.score > mu).map((d) => String(d.payload.column)));
      for (const c of joinColumns(ctx.schema, t.name, keptTables)) passed.add(c);
      if (passed.size === 0 && own.length > 0) passed.add(String(own[0].payload.column));
      return { table: t.name, columns: t.columns.filter((c) => passed.has(c.name)).map((c) => c.name) };
    });
    const gold = touchedSchema(ctx.item.goldSql, ctx.schema);
    const predicted = { tables: filtered.map((t) => t.table), columns: filtered.flatMap((t) => t.columns.map((column) => ({ table: t.table, column }))) };
    const totalColumns = ctx.schema.tables.reduce((n, t) => n + t.columns.length, 0);
    const output: FilteredSchema = {
      tables: filtered,
      metrics: {
        ...linkingMetricEntries('rb-sql.linking', linkingMetrics(predicted, gold)),
        'rb-sql.columns.reduction': ratio(predicted.columns.length, totalColumns),
        'rb-sql.columns.kept': predicted.columns.length,
      },
    };
    return { output };
  },
});
