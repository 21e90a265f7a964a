import { DatasetError } from './errors';
import { readUtf8File } from './utf8-file';

/** `line L, column C` (1-based) of a character offset, for messages a user can jump to. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const message = (err as Error).message;
    const position = /at position (\d+)/.exec(message);
    const where = position ? lineColumnAt(text, Number(position[1])) : undefined;
    throw new DatasetError(file, `malformed JSON${where ? ` at line ${where.line}, column ${where.column}` : ''}: ${message}`);
  }
}

export async function readJsonFile(file: string): Promise<unknown> {
  return parseJson(await readUtf8File(file), file);
}

export function asArray(value: unknown, file: string, what: string): unknown[] {
  if (!Array.isArray(value)) throw new DatasetError(file, `expected ${what} to be a JSON array`);
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The 1-based line on which each element of a top-level JSON array starts (the text must parse as an array), so
 * that a bad item can be named by the line an editor shows, not only by its index.
 */
export function arrayElementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line += 1;
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
    if (depth === 1 && expectElement && c !== ']') {
      lines.push(line);
      expectElement = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth === 1) expectElement = true;
    } else if (c === ']' || c === '}') depth -= 1;
    else if (c === ',' && depth === 1) expectElement = true;
  }
  return lines;
}

/** A JSON file that must hold an array, with the line each element starts on. */
export async function readJsonArrayWithLines(file: string, what: string): Promise<{ entries: unknown[]; lines: number[] }> {
  const text = await readUtf8File(file);
  const entries = asArray(parseJson(text, file), file, what);
  return { entries, lines: arrayElementLines(text) };
}
