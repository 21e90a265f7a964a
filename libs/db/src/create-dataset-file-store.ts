import type { Db } from './connection';
import { PostgresDatasetFileStore, type DatasetFileStore } from './dataset-file-store';
import { S3DatasetFileStore, type S3StoreSettings } from './s3-dataset-file-store';

/** Which backend holds dataset files' bytes (SQLSWEEP_DATASET_STORE; see datasetStoreSettings in @sqlsweep/config). */
export type DatasetStoreSettings = { kind: 'postgres' } | ({ kind: 's3' } & S3StoreSettings);

export function createDatasetFileStore(db: Db, settings: DatasetStoreSettings = { kind: 'postgres' }): DatasetFileStore {
  return settings.kind === 's3' ? new S3DatasetFileStore(db, settings) : new PostgresDatasetFileStore(db);
}
