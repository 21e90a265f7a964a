import { join } from 'node:path';
import { prepareDatasetVersion, sha256File, type DatasetFormat, type DatasetProblem } from '@sqlsweep/datasets';
import type { DatasetRepository, DatasetVersion } from '@sqlsweep/db';

export interface RegisteredDataset { version: DatasetVersion; created: boolean; items: number; databases: number; problems: DatasetProblem[] }

/**
 * Registers a dataset folder as a version (content hash of every file). Replicas are made once per version and
 * verified by checksum; registering the same content again is a no-op that returns the existing version.
 */
export async function registerDataset(
  repo: DatasetRepository,
  opts: { name: string; format: DatasetFormat; path: string; dataDir: string },
): Promise<RegisteredDataset> {
  const prepared = await prepareDatasetVersion({ format: opts.format, path: opts.path, cacheDir: join(opts.dataDir, 'replicas') });
  const { dataset } = prepared;
  const flagged = new Set(dataset.problems.map((p) => p.item).filter((i): i is string => i !== undefined));
  const items = dataset.items.filter((i) => !flagged.has(i.id));
  const databases = await Promise.all(
    dataset.databases.filter((d) => prepared.replicas.has(d.dbId)).map(async (d) => {
      const replicaPath = prepared.replicas.get(d.dbId)!;
      return { dbId: d.dbId, replicaPath, checksum: await sha256File(replicaPath), schema: { ...d, sqlitePath: replicaPath } };
    }),
  );
  const { version, created } = await repo.registerVersion({
    name: opts.name, format: opts.format, contentHash: prepared.versionHash, sourcePath: dataset.root,
    items: items.map((i) => ({ itemId: i.id, split: i.split, dbId: i.dbId, question: i.question, evidence: i.evidence, goldSql: i.goldSql, difficulty: i.difficulty, hardness: i.hardness })),
    databases,
  });
  return { version, created, items: items.length, databases: databases.length, problems: dataset.problems };
}
