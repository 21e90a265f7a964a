import type { DatabaseSchema } from '@sqlsweep/datasets';
import type { DatasetRepository } from '@sqlsweep/db';
import { UnrecoverableError, type JobPayload } from '@sqlsweep/queue';
import { columnDocuments, DOCUMENT_BUILDER_VERSION, tableDocuments } from '@sqlsweep/retrieval';
import type { WorkerRetrieval } from './stage-services';

/** `index.build` jobs: the table or column index of one database, built once per content hash. */
export async function buildSchemaIndexJob(p: JobPayload<'index.build'>, deps: { datasets: DatasetRepository; retrieval: WorkerRetrieval }): Promise<void> {
  const [version, db] = await Promise.all([deps.datasets.getVersion(p.datasetVersionId), deps.datasets.getDatabase(p.datasetVersionId, p.dbId)]);
  if (!db) throw new UnrecoverableError(`dataset version ${p.datasetVersionId} has no database ${p.dbId}`); // no retry adds it
  const schema = db.schema as DatabaseSchema;
  await deps.retrieval.index({
    datasetVersion: version.contentHash, dbId: p.dbId, kind: p.kind, builderVersion: DOCUMENT_BUILDER_VERSION,
    documents: p.kind === 'table' ? tableDocuments(schema) : columnDocuments(schema),
  });
}
