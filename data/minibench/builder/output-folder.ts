import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MinibenchManifest } from './types';

/** Returns the manifest when outDir was built from these exact sources and every output file is present. */
export function readCurrentManifest(outDir: string, sourceHash: string): MinibenchManifest | undefined {
  const manifestPath = path.join(outDir, 'manifest.json');
  if (!fs.existsSync(manifestPath)) return undefined;
  let manifest: MinibenchManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as MinibenchManifest;
  } catch {
    return undefined;
  }
  if (manifest.sourceHash !== sourceHash || !manifest.databases) return undefined;
  const required = ['dev.json', 'train.json', 'dev_gold.sql', 'train_gold.sql', 'dev_tables.json'];
  for (const dbId of Object.keys(manifest.databases)) {
    required.push(path.join('dev_databases', dbId, `${dbId}.sqlite`));
  }
  return required.every((f) => fs.existsSync(path.join(outDir, f))) ? manifest : undefined;
}

/** Swaps the freshly built folder into place; readers see either the old or the new build, never a mix. */
export function replaceDirectory(tmpDir: string, outDir: string): void {
  const oldDir = `${outDir}.old-${process.pid}-${randomBytes(4).toString('hex')}`;
  const hadOld = fs.existsSync(outDir);
  if (hadOld) fs.renameSync(outDir, oldDir);
  fs.renameSync(tmpDir, outDir);
  if (hadOld) fs.rmSync(oldDir, { recursive: true, force: true });
}
