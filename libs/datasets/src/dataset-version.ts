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

/** The files a loaded dataset's version is made of: `Dataset.files` (a Spider variant) or every file under its root. */
export async function versionFilesOf(dataset: Dataset): Promise<DatasetFile[]> {
  return dataset.files ? hashFiles(dataset.files) : listDatasetFiles(dataset.root);
}

/** The content hash `datasets add` gives this loaded dataset's version (for tools that load a folder themselves). */
export async function versionHashOfDataset(dataset: Dataset): Promise<string> {
  return versionHashOf(await versionFilesOf(dataset));
}

/** What `sqlsweep datasets add` needs: the dataset loaded, its files hashed, and its replicas made and verified. */
export async function prepareDatasetVersion(opts: LoadDatasetOptions & { dataDir: string }): Promise<DatasetVersion> {
  const dataset = await loadDataset(opts);
  const files = await versionFilesOf(dataset);
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
