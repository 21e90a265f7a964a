import { resolve } from 'node:path';
import { DatasetError } from './errors';
import { hashFiles, listDatasetFiles, versionHashOf, type DatasetFile } from './hash-files';
import { loadDataset, type LoadDatasetOptions } from './load-dataset';
import { ensureReplicas } from './replicas';
import type { Dataset } from './types';

export interface DatasetVersion {
  /** Content hash of every file of the dataset folder, or of the files a Spider variant is built from (see `versionHashOf`). */
  versionHash: string;
  dataset: Dataset;
  /** Every file the hash covers, in path order: what the dataset store keeps of the version. */
  files: DatasetFile[];
  /** dbId -> its file in `files`. */
  databaseFiles: Map<string, DatasetFile>;
  /** dbId -> checksum-verified read-only replica path. */
  replicas: Map<string, string>;
}

/** What `sqlsweep datasets add` needs: the dataset loaded, its files hashed, and its replicas made and verified. */
export async function prepareDatasetVersion(opts: LoadDatasetOptions & { dataDir: string }): Promise<DatasetVersion> {
  const dataset = await loadDataset(opts);
  const files = dataset.files ? await hashFiles(dataset.files) : await listDatasetFiles(dataset.root);
  const byAbsPath = new Map(files.map((f) => [resolve(f.absPath), f]));
  const databaseFiles = new Map<string, DatasetFile>();
  for (const db of dataset.databases) {
    const file = byAbsPath.get(resolve(db.sqlitePath));
    if (!file) throw new DatasetError(db.sqlitePath, `database ${db.dbId} is not a regular file inside the dataset folder (a link?); copy it in`);
    databaseFiles.set(db.dbId, file);
  }
  const replicas = await ensureReplicas({
    dataDir: opts.dataDir,
    databases: dataset.databases.map((d) => ({ dbId: d.dbId, sqlitePath: d.sqlitePath, sha256: databaseFiles.get(d.dbId)!.sha256 })),
  });
  return { versionHash: versionHashOf(files), dataset, files, databaseFiles, replicas };
}
