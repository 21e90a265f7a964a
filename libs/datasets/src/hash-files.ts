import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

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

/**
 * Content hash of a dataset folder: sha256 over every file's relative path (POSIX separators, sorted) and the
 * sha256 of its bytes. Renaming, adding, removing or editing any file changes it; timestamps do not.
 */
export async function hashDatasetFiles(root: string): Promise<string> {
  const files = (await listFiles(root))
    .map((f) => ({ abs: f, rel: relative(root, f).split(sep).join('/') }))
    .sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.rel}\u0000${await sha256File(file.abs)}\n`);
  return hash.digest('hex');
}
