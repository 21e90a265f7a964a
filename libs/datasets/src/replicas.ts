import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatasetError } from './errors';
import { sha256File } from './hash-files';

/**
 * Replicas are content-addressed: `<dataDir>/replicas/<sha256>.sqlite`, read-only (0444). The same bytes have the
 * same path on every machine whatever dataset version or folder they came from, so `datasets add` and a worker on
 * the same data directory share them, and a replica is only ever checked against the checksum in its name.
 */
export function replicaPathOf(dataDir: string, sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new DatasetError(dataDir, `"${sha256}" is not a sha256: no replica is named by it`);
  return join(resolve(dataDir), 'replicas', `${sha256}.sqlite`);
}

/** Replicas already verified in this process, by path, with the size and mtime they had then. */
const verified = new Map<string, { size: number; mtimeMs: number }>();

/**
 * 'verified' when this process verified `path` and it has not changed since (size and mtime), 'vanished' when it
 * verified it and the file is gone, 'unknown' otherwise (never seen, or changed: to be checked again).
 */
export async function verifiedState(path: string): Promise<'verified' | 'vanished' | 'unknown'> {
  const seen = verified.get(path);
  if (!seen) return 'unknown';
  const s = await stat(path).catch(() => undefined);
  if (!s) return 'vanished';
  if (s.size === seen.size && s.mtimeMs === seen.mtimeMs) return 'verified';
  verified.delete(path);
  return 'unknown';
}

export function forgetVerified(path: string): void {
  verified.delete(path);
}

export async function rememberVerified(path: string): Promise<void> {
  const s = await stat(path);
  verified.set(path, { size: s.size, mtimeMs: s.mtimeMs });
}

/** A fresh temporary name beside `path`, for a write that ends in an atomic rename. */
export function tempPathBeside(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export interface EnsureReplicasOptions {
  /** Each database's source file and its sha256 (as listed by `listDatasetFiles`). */
  databases: Array<{ dbId: string; sqlitePath: string; sha256: string }>;
  dataDir: string;
}

/**
 * Makes the read-only replica of each database from its source file (see `replicaPathOf`), verifying every
 * replica's checksum before handing it out; one whose bytes no longer match is replaced from the source.
 * Returns dbId -> replica path.
 */
export async function ensureReplicas(opts: EnsureReplicasOptions): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const db of opts.databases) {
    const replica = replicaPathOf(opts.dataDir, db.sha256);
    if ((await verifiedState(replica)) !== 'verified') {
      if (existsSync(replica) && (await sha256File(replica)) !== db.sha256) await rm(replica, { force: true });
      if (existsSync(replica)) await rememberVerified(replica);
      else await copyReplica(db, replica);
    }
    out.set(db.dbId, replica);
  }
  return out;
}

async function copyReplica(db: EnsureReplicasOptions['databases'][number], replica: string): Promise<void> {
  if (!existsSync(db.sqlitePath)) throw new DatasetError(db.sqlitePath, `database file of ${db.dbId} is missing`);
  await mkdir(join(replica, '..'), { recursive: true });
  const tmp = tempPathBeside(replica);
  await copyFile(db.sqlitePath, tmp);
  if ((await sha256File(tmp)) !== db.sha256) {
    await rm(tmp, { force: true });
    throw new DatasetError(db.sqlitePath, `copy of ${db.dbId} does not match its source checksum (source changed while copying?)`);
  }
  await chmod(tmp, 0o444);
  await rename(tmp, replica);
  await rememberVerified(replica);
}
