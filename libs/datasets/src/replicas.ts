import { chmod, copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatasetError } from './errors';
import { sha256File } from './hash-files';
import type { DatabaseSchema } from './types';

export interface EnsureReplicasOptions {
  versionHash: string;
  databases: DatabaseSchema[];
  cacheDir: string;
}

/** Replicas already verified in this process, by path, with the size and mtime they had then. */
const verified = new Map<string, { size: number; mtimeMs: number }>();

async function isVerified(path: string): Promise<boolean> {
  const seen = verified.get(path);
  if (!seen) return false;
  const s = await stat(path);
  return s.size === seen.size && s.mtimeMs === seen.mtimeMs;
}

/**
 * Makes one read-only copy of each database per dataset version (`<cacheDir>/<versionHash>/<dbId>.sqlite`, mode
 * 0444, with its sha256 beside it) and verifies every replica's checksum before handing it out. A replica whose
 * bytes no longer match is replaced from the source. Returns dbId -> replica path.
 */
export async function ensureReplicas(opts: EnsureReplicasOptions): Promise<Map<string, string>> {
  if (!/^[A-Za-z0-9_-]+$/.test(opts.versionHash)) {
    throw new DatasetError(opts.cacheDir, `version hash "${opts.versionHash}" is not a safe folder name`);
  }
  const dir = join(opts.cacheDir, opts.versionHash);
  await mkdir(dir, { recursive: true });
  const out = new Map<string, string>();
  for (const db of opts.databases) {
    const replica = join(dir, `${db.dbId}.sqlite`);
    const sumFile = `${replica}.sha256`;
    if (await isVerified(replica)) {
      out.set(db.dbId, replica);
      continue;
    }
    if (existsSync(replica) && existsSync(sumFile)) {
      const expected = (await readFile(sumFile, 'utf8')).trim();
      if ((await sha256File(replica)) === expected) {
        await remember(replica);
        out.set(db.dbId, replica);
        continue;
      }
      await rm(replica, { force: true });
    }
    await copyReplica(db, replica, sumFile);
    out.set(db.dbId, replica);
  }
  return out;
}

async function copyReplica(db: DatabaseSchema, replica: string, sumFile: string): Promise<void> {
  if (!existsSync(db.sqlitePath)) throw new DatasetError(db.sqlitePath, `database file of ${db.dbId} is missing`);
  const sourceSum = await sha256File(db.sqlitePath);
  const tmp = `${replica}.tmp-${process.pid}`;
  await copyFile(db.sqlitePath, tmp);
  const copySum = await sha256File(tmp);
  if (copySum !== sourceSum) {
    await rm(tmp, { force: true });
    throw new DatasetError(db.sqlitePath, `copy of ${db.dbId} does not match its source checksum (source changed while copying?)`);
  }
  await chmod(tmp, 0o444);
  await rename(tmp, replica);
  await writeFile(sumFile, `${copySum}\n`);
  await remember(replica);
}

async function remember(path: string): Promise<void> {
  const s = await stat(path);
  verified.set(path, { size: s.size, mtimeMs: s.mtimeMs });
}
