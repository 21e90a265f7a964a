import type { DatabaseSchema } from '@sqlsweep/datasets';
import { columnDocuments, DOCUMENT_BUILDER_VERSION, tableDocuments } from '../documents/builders';
import type { Encoder } from '../encoder/encoder';
import { buildIndex, openIndex, type BuildIndexResult } from '../index/build-index';
import type { SchemaIndexes } from './table-retriever';

export interface SchemaIndexBuild {
  indexes: SchemaIndexes;
  tableIndex: BuildIndexResult;
  columnIndex: BuildIndexResult;
}

/** Builds (or reuses) the table and column indexes of one database and opens them. */
export async function buildSchemaIndexes(
  database: DatabaseSchema,
  deps: { encoder: Encoder; indexRoot: string; datasetVersion: string },
): Promise<SchemaIndexBuild> {
  const common = { datasetVersion: deps.datasetVersion, dbId: database.dbId, builderVersion: DOCUMENT_BUILDER_VERSION };
  const tableIndex = await buildIndex({ ...common, kind: 'table', documents: tableDocuments(database) }, deps);
  const columnIndex = await buildIndex({ ...common, kind: 'column', documents: columnDocuments(database) }, deps);
  const [tables, columns] = await Promise.all([openIndex(deps.indexRoot, tableIndex.key), openIndex(deps.indexRoot, columnIndex.key)]);
  return {
    indexes: { tables: tables.index, columns: columns.index },
    tableIndex,
    columnIndex,
  };
}
