import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RetrievalDocument } from '../index/types';

/**
 * A corpus's chunks kept on disk by key, in `dir`: made by `chunk` once, read back by every later call, in this or any
 * process of the host. Chunking counts every distinct word's encoder tokens (R3's 1 MB corpus: about a second, the
 * event loop blocked), which each worker process otherwise paid on its first r3.rag. The key must name everything the
 * chunks depend on (corpus content, chunk size, encoder, builder version); it is hashed into the file name. A file
 * that does not read back as chunks is made again.
 */
export async function cachedChunks(dir: string, key: string, chunk: () => RetrievalDocument[]): Promise<RetrievalDocument[]> {
  const file = join(dir, `${createHash('sha256').update(key).digest('hex')}.json`);
  const stored = await readChunks(file);
  if (stored) return stored;
  const documents = chunk();
  // Written whole under a name of its own, then renamed: a reader never sees half a file, and two processes making
  // the same chunks at once both leave a whole one.
  const staging = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(staging, JSON.stringify(documents));
    await rename(staging, file);
  } catch {
    // A cache that cannot be written (a full or read-only disk, a file in the folder's place) only costs the chunking next time.
    await rm(staging, { force: true }).catch(() => undefined);
  }
  return documents;
}

async function readChunks(file: string): Promise<RetrievalDocument[] | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  const isChunk = (d: unknown) => {
    const c = d as RetrievalDocument | null;
    return typeof c === 'object' && c !== null && typeof c.id === 'string' && typeof c.kind === 'string' && typeof c.text === 'string'
      && typeof c.payload === 'object' && c.payload !== null;
  };
  return Array.isArray(parsed) && parsed.length > 0 && parsed.every(isChunk) ? (parsed as RetrievalDocument[]) : undefined;
}
