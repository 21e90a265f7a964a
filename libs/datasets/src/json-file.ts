import { readFile } from 'node:fs/promises';
import { DatasetError } from './errors';

export async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new DatasetError(file, `cannot read file: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
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
