export { DATASET_SOURCE_FORMATS } from './types';
export type {
  DatasetFormat,
  DatasetSourceFormat,
  DatasetSourceFile,
  SpiderVariantFormat,
  ColumnSchema,
  TableSchema,
  DatabaseSchema,
  DatasetItem,
  DatasetProblem,
  GoldFlag,
  GoldFlagKind,
  Dataset,
  SpiderHardness,
  BirdDifficulty,
} from './types';
export { DatasetError } from './errors';
export { loadDataset, type LoadDatasetOptions } from './load-dataset';
export { spiderHardness } from './spider-hardness';
export { parseSpiderSql, tokenizeSpiderSql, SpiderParseError, type ParsedSql } from './spider-sql-parser';
export { decodeText } from './text-decoding';
export { parseCsv, parseCsvRows, type CsvRow } from './csv';
export { readColumnDescriptions, type ColumnDescription } from './description-csv';
export { hashDatasetFiles, hashFiles, listDatasetFiles, listFilesUnder, sha256File, versionHashOf, type DatasetFile } from './hash-files';
export { ensureReplicas, replicaPathOf, type EnsureReplicasOptions } from './replicas';
export {
  ReplicaMaterializer, ReplicaMissingError, ReplicaChecksumError, DatasetFileNotStoredError, registerCommandFor, type DatasetFileSource,
  type ReplicaRequest,
} from './replica-materializer';
export { renderSchemaDdl } from './schema-ddl';
export { checkGoldExecution, checkGoldInSandbox, goldFlagOf, type CheckGoldOptions, type GoldCheckSandbox } from './gold-check';
export { prepareDatasetVersion, versionFilesOf, versionHashOfDataset, type DatasetVersion } from './dataset-version';
export { readSqliteTables, type SqliteTable } from './sqlite-introspection';
