import { join } from 'node:path';
import {
  checkGoldInSandbox, prepareDatasetVersion, sha256File, type DatasetFormat, type DatasetProblem, type GoldCheckSandbox,
} from '@sqlsweep/datasets';
import type { DatasetRepository, DatasetVersion, FlaggedItem } from '@sqlsweep/db';

export interface RegisteredDataset {
  version: DatasetVersion; created: boolean; items: number; databases: number; problems: DatasetProblem[];
  /** Items whose gold query `datasets add` flagged: stored, but left out of sweeps. */
  goldFlags: FlaggedItem[];
}

/**
 * Registers a dataset folder as a version (content hash of every file). Replicas are made once per version and
 * verified by checksum; every gold query is run once in the sandbox and flagged items are stored with their flag
 * (sweeps leave them out). Registering the same content again is a no-op that returns the existing version.
 */
export async function registerDataset(
  repo: DatasetRepository,
  /** `sandbox`: the limits sweeps' workers use (SQLSWEEP_SANDBOX_SIZE, SQLSWEEP_SQL_DEADLINE_MS); the pool's defaults otherwise. */
  opts: { name: string; format: DatasetFormat; path: string; dataDir: string; sandbox?: GoldCheckSandbox },
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
  const known = await repo.findVersion(opts.name, prepared.versionHash);
  const goldFlags = known?.contentHash === prepared.versionHash
    ? undefined // already registered: its flags are stored
    : await checkGoldInSandbox({ dataset: { ...dataset, items }, replicas: prepared.replicas, sandbox: opts.sandbox });
  const flagOf = new Map(goldFlags?.map((f) => [f.item, { flag: f.flag, reason: f.message }]));
  const { version, created } = await repo.registerVersion({
    name: opts.name, format: opts.format, contentHash: prepared.versionHash, sourcePath: dataset.root,
    items: items.map((i) => ({
      itemId: i.id, split: i.split, dbId: i.dbId, question: i.question, evidence: i.evidence, goldSql: i.goldSql, difficulty: i.difficulty,
      hardness: i.hardness, goldFlag: flagOf.get(i.id),
    })),
    databases,
  });
  return { version, created, items: items.length, databases: databases.length, problems: dataset.problems, goldFlags: await repo.listGoldFlags(version.id) };
}

