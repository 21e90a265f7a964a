import { readFile, stat } from 'node:fs/promises';
import { assertSweepConfigSize, SweepConfigError } from '@sqlsweep/contracts';

/** Reads a sweep config file, refusing a missing one or one over the size cap before reading it. */
export async function readSweepConfigFile(path: string, source = path): Promise<string> {
  const fail = (e: NodeJS.ErrnoException): never => {
    throw new SweepConfigError(source, '', e.code === 'ENOENT' ? 'file not found' : e.message);
  };
  const info = await stat(path).catch(fail);
  if (!info.isFile()) throw new SweepConfigError(source, '', 'not a regular file');
  assertSweepConfigSize(info.size, source);
  return readFile(path, 'utf8').catch(fail);
}
