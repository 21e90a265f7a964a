import { realpathSync } from 'node:fs';
import { isAbsolute, resolve, sep, win32 } from 'node:path';
import { corpusDir } from '@sqlsweep/contracts';

/** The corpus directory rule lives in libs/contracts, so set-up (scripts) applies the same one as the planner and workers. */
export { corpusDir, DEFAULT_CORPUS_DIR } from '@sqlsweep/contracts';

/** A file knob's path that names no file inside the corpus directory; `reason` says why, for `file: path: reason`. */
export class CorpusPathError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'CorpusPathError';
  }
}

/**
 * The real path of the file `path` names inside the corpus directory `dir`. A path must be relative to `dir`, without
 * `..`, and must not resolve outside it through a symbolic link; anything else is a CorpusPathError. Read the
 * returned path (not `path`), so a link changed after this check cannot lead the read elsewhere.
 */
export function resolveCorpusPath(path: string, dir = corpusDir()): string {
  const where = `the corpus directory ${dir} (SQLSWEEP_CORPUS_DIR)`;
  if (path.includes('\0')) throw new CorpusPathError('a file path cannot hold a NUL byte');
  if (isAbsolute(path) || win32.isAbsolute(path)) throw new CorpusPathError(`"${path}" is absolute: name a file relative to ${where}`);
  if (path.split(/[\\/]/).includes('..')) throw new CorpusPathError(`"${path}" holds "..": name a file inside ${where}`);
  let root: string;
  try {
    root = realpathSync(dir);
  } catch {
    throw new CorpusPathError(`${where} does not exist`);
  }
  let real: string;
  try {
    real = realpathSync(resolve(root, path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CorpusPathError(code === 'ENOENT' ? `no such file in ${where}` : (e as Error).message);
  }
  const inside = real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
  if (!inside) throw new CorpusPathError(`"${path}" is a link to ${real}, outside ${where}`);
  return real;
}
