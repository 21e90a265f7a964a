import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { DatasetSourceFile } from './types';

/** One file of a dataset folder: its path relative to the folder (POSIX separators), bytes and sha256. */
export interface DatasetFile { path: string; absPath: string; size: number; sha256: string }

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', (err) => reject(new Error(`${file}: cannot read for hashing: ${err.message}`)))
      .on('end', () => resolve(hash.digest('hex')));
  });
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Every regular file under `root` (links are not followed), with its path relative to `prefix` (default: `root`). */
export async function listFilesUnder(root: string, prefix = root): Promise<DatasetSourceFile[]> {
  return (await listFiles(root)).map((abs) => ({ absPath: abs, path: relative(prefix, abs).split(sep).join('/') }));
}

/** Sizes and hashes these files, sorted by path (code-unit order, the same on every platform). */
export async function hashFiles(files: readonly DatasetSourceFile[]): Promise<DatasetFile[]> {
  const out: DatasetFile[] = [];
  for (const f of [...files].sort(byPath)) out.push({ ...f, size: (await stat(f.absPath)).size, sha256: await sha256File(f.absPath) });
  return out;
}

/** Every regular file under `root`, sorted by relative path, hashed. */
export async function listDatasetFiles(root: string): Promise<DatasetFile[]> {
  return hashFiles(await listFilesUnder(root));
}

/**
 * A dataset version's content hash: sha256 over each file's relative path and the sha256 of its bytes, in path
 * order. Content only: where the folder is, when it was built and file timestamps do not count.
 */
export function versionHashOf(files: ReadonlyArray<Pick<DatasetFile, 'path' | 'sha256'>>): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort(byPath)) hash.update(`${file.path}\u0000${file.sha256}\n`);
  return hash.digest('hex');
}

/** Content hash of a dataset folder (see `versionHashOf`). */
export async function hashDatasetFiles(root: string): Promise<string> {
  return versionHashOf(await listDatasetFiles(root));
}
