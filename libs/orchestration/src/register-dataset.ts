import { checkGoldInSandbox, prepareDatasetVersion, type DatasetFile, type DatasetProblem, type DatasetSourceFormat, type GoldCheckSandbox } from '@sqlsweep/datasets';
import type { DatasetFileStore, DatasetRepository, DatasetVersion, FlaggedItem } from '@sqlsweep/db';

export interface RegisteredDataset {
  version: DatasetVersion; created: boolean; items: number; databases: number; problems: DatasetProblem[];
  /** Items whose gold query `datasets add` flagged: stored, but left out of sweeps. */
  goldFlags: FlaggedItem[];
  /** The version's files put in the dataset store now, and those it held already (from any path or version). */
  stored: { files: number; bytes: number; alreadyStored: number };
}

/**
 * Registers a dataset folder as a version (content hash of every file, wherever the folder is). Its files go to
 * the dataset store once by content, so any worker can make its replicas; a local replica of each database is made
 * and verified by checksum; every gold query is run once in the sandbox and flagged items are stored with their
 * flag (sweeps leave them out). Registering the same content again returns the existing version and stores
 * whatever files of it the store lacks (none, normally).
 */
export async function registerDataset(
  repo: DatasetRepository,
  /** `sandbox`: the limits sweeps' workers use (SQLSWEEP_SANDBOX_SIZE, SQLSWEEP_SQL_DEADLINE_MS); the pool's defaults otherwise. */
  /** `spiderPath`: the Spider folder a spider-syn, spider-realistic or spider-dk folder's questions run on. */
  opts: { name: string; format: DatasetSourceFormat; path: string; spiderPath?: string; dataDir: string; sandbox?: GoldCheckSandbox },
): Promise<RegisteredDataset> {
  const prepared = await prepareDatasetVersion({ format: opts.format, path: opts.path, spiderPath: opts.spiderPath, dataDir: opts.dataDir });
  const { dataset } = prepared;
  const flagged = new Set(dataset.problems.map((p) => p.item).filter((i): i is string => i !== undefined));
  const items = dataset.items.filter((i) => !flagged.has(i.id));
  const databases = dataset.databases.filter((d) => prepared.replicas.has(d.dbId)).map((d) => {
    const file = prepared.databaseFiles.get(d.dbId)!;
    // Paths inside the dataset folder only: nothing stored depends on where it was registered from.
    return { dbId: d.dbId, replicaPath: file.path, checksum: file.sha256, schema: { ...d, sqlitePath: file.path } };
  });
  const known = await repo.findVersion(opts.name, prepared.versionHash);
  const goldFlags = known?.contentHash === prepared.versionHash
    ? undefined // already registered: its flags are stored
    : await checkGoldInSandbox({ dataset: { ...dataset, items }, replicas: prepared.replicas, sandbox: opts.sandbox });
  const flagOf = new Map(goldFlags?.map((f) => [f.item, { flag: f.flag, reason: f.message }]));
  const stored = await storeFiles(repo.files, prepared.files);
  const { version, created } = await repo.registerVersion({
    // A Spider variant is stored as format spider: it is scored with Spider's semantics.
    name: opts.name, format: dataset.format, contentHash: prepared.versionHash, sourcePath: dataset.root,
    items: items.map((i) => ({
      itemId: i.id, split: i.split, dbId: i.dbId, question: i.question, evidence: i.evidence, goldSql: i.goldSql, difficulty: i.difficulty,
      hardness: i.hardness, goldFlag: flagOf.get(i.id),
    })),
    databases,
    files: prepared.files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size })),
  });
  return {
    version, created, items: items.length, databases: databases.length, problems: dataset.problems, stored,
    goldFlags: await repo.listGoldFlags(version.id),
  };
}

/** Puts each file the store lacks (one content stored once, however many paths hold it). */
async function storeFiles(store: DatasetFileStore, files: DatasetFile[]): Promise<RegisteredDataset['stored']> {
  const unique = [...new Map(files.map((f) => [f.sha256, f])).values()];
  const present = await store.storedAmong(unique.map((f) => f.sha256));
  const out = { files: 0, bytes: 0, alreadyStored: present.size };
  for (const f of unique) {
    if (present.has(f.sha256)) continue;
    if (await store.put({ sha256: f.sha256, size: f.size, absPath: f.absPath })) {
      out.files += 1;
      out.bytes += f.size;
    } else out.alreadyStored += 1;
  }
  return out;
}
