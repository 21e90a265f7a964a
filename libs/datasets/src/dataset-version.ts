import { hashDatasetFiles } from './hash-files';
import { loadDataset, type LoadDatasetOptions } from './load-dataset';
import { ensureReplicas } from './replicas';
import type { Dataset } from './types';

export interface DatasetVersion {
  /** Content hash of every file of the dataset folder. */
  versionHash: string;
  dataset: Dataset;
  /** dbId -> checksum-verified read-only replica path. */
  replicas: Map<string, string>;
}

/** What `sqlsweep datasets add` needs: the dataset loaded, its version hash, and its replicas made and verified. */
export async function prepareDatasetVersion(opts: LoadDatasetOptions & { cacheDir: string }): Promise<DatasetVersion> {
  const dataset = await loadDataset(opts);
  const versionHash = await hashDatasetFiles(dataset.root);
  const replicas = await ensureReplicas({ versionHash, databases: dataset.databases, cacheDir: opts.cacheDir });
  return { versionHash, dataset, replicas };
}
