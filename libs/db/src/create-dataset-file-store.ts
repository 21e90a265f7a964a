import type { Db } from './connection';
import { PostgresDatasetFileStore, type DatasetFileStore } from './dataset-file-store';
import type { S3StoreSettings } from './s3-dataset-file-store';

/** Which backend holds dataset files' bytes (SQLSWEEP_DATASET_STORE; see datasetStoreSettings in @sqlsweep/config). */
export type DatasetStoreSettings = { kind: 'postgres' } | ({ kind: 's3' } & S3StoreSettings);

export function createDatasetFileStore(db: Db, settings: DatasetStoreSettings = { kind: 'postgres' }): DatasetFileStore {
  if (settings.kind === 'postgres') return new PostgresDatasetFileStore(db);
  // The AWS SDK loads only where S3 is configured: every other process is spared its start-up time and memory.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { S3DatasetFileStore } = require('./s3-dataset-file-store') as typeof import('./s3-dataset-file-store');
  return new S3DatasetFileStore(db, settings);
}
