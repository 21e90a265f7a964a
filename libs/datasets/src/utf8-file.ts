import { readFile } from 'node:fs/promises';
import { DatasetError } from './errors';
import { invalidUtf8Offset } from './text-decoding';

/**
 * Reads a file that must be UTF-8 (questions, schemas, gold SQL). Bytes that are not are refused with their offset:
 * decoding them leniently would store U+FFFD in questions and gold SQL without a word.
 */
export async function readUtf8File(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DatasetError(file, code === 'ENOENT' ? 'file is missing' : `cannot read file: ${(err as Error).message}`);
  }
  const at = invalidUtf8Offset(bytes);
  if (at !== undefined) {
    const shown = [...bytes.subarray(at, at + 4)].map((b) => `0x${b.toString(16).padStart(2, '0')}`).join(' ');
    throw new DatasetError(file, `not valid UTF-8 at byte offset ${at} (bytes ${shown}); re-save the file as UTF-8`);
  }
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}
