import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { INDEX_MANIFEST_FILE, readIndexManifest, type IndexManifest } from './build-index';

export interface IndexListing {
  indexes: IndexManifest[];
  /** directories under the root without a readable manifest (interrupted builds, foreign files) */
  incomplete: string[];
}

/** Every built index under `indexRoot`, newest first (what `sqlsweep index status` shows). */
export function listIndexes(indexRoot: string): IndexListing {
  if (!existsSync(indexRoot)) return { indexes: [], incomplete: [] };
  const indexes: IndexManifest[] = [];
  const incomplete: string[] = [];
  for (const entry of readdirSync(indexRoot, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(indexRoot, entry.name);
    if (!existsSync(join(dir, INDEX_MANIFEST_FILE))) {
      incomplete.push(dir);
      continue;
    }
    try {
      indexes.push(readIndexManifest(dir));
    } catch {
      incomplete.push(dir);
    }
  }
  indexes.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return { indexes, incomplete };
}
