import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MinibenchBuildError } from './errors';

/**
 * Bump when the output format or the validation rules change, so old builds are not reused. The builder's own files
 * are hashed (`hashSources`), the libs/datasets code it calls (CSV parsing, schema pragmas) is not: bump this when a
 * change there changes the output.
 */
const BUILDER_FORMAT_VERSION = '1';

export function listDatabaseFolders(srcDir: string): string[] {
  if (!fs.existsSync(srcDir)) throw new MinibenchBuildError(srcDir, 'source folder does not exist');
  const ids = fs
    .readdirSync(srcDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  if (ids.length === 0) throw new MinibenchBuildError(srcDir, 'no database folders');
  for (const id of ids) {
    if (!/^[a-z][a-z0-9_]*$/.test(id)) {
      throw new MinibenchBuildError(path.join(srcDir, id), 'db_id folder names must match [a-z][a-z0-9_]*');
    }
  }
  return ids;
}

export function listFilesRecursive(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFilesRecursive(full));
    else if (e.isFile()) out.push(full);
  }
  return out;
}


/** The builder's own code: build.ts and every module of builder/ (specs aside), in name order. */
function builderSourceFiles(): string[] {
  const modules = fs
    .readdirSync(__dirname)
    .filter((f) => /\.[jt]s$/.test(f) && !/\.spec\.[jt]s$/.test(f))
    .sort()
    .map((f) => path.join(__dirname, f));
  return [path.join(__dirname, '..', `build${path.extname(__filename)}`), ...modules];
}

/** sha256 over the builder format version, the builder's own code and every source file (path and bytes). */
export function hashSources(srcDir: string): string {
  const hash = createHash('sha256');
  hash.update(`minibench-builder-v${BUILDER_FORMAT_VERSION}\0`);
  for (const file of builderSourceFiles()) hash.update(fs.readFileSync(file));
  const files = listFilesRecursive(srcDir)
    .map((f) => path.relative(srcDir, f).split(path.sep).join('/'))
    .sort();
  for (const rel of files) {
    const bytes = fs.readFileSync(path.join(srcDir, rel));
    hash.update(`\0${rel}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

