import { DatasetError } from './errors';
import { readUtf8File } from './utf8-file';

export async function readJsonFile(file: string): Promise<unknown> {
  const text = await readUtf8File(file);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new DatasetError(file, `malformed JSON: ${(err as Error).message}`);
  }
}

export function asArray(value: unknown, file: string, what: string): unknown[] {
  if (!Array.isArray(value)) throw new DatasetError(file, `expected ${what} to be a JSON array`);
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
