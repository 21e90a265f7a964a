import { parseJsonAnswer } from '../../parse-json';

export type ParsedTableList = { ok: true; names: string[] } | { ok: false; error: string };

const bullet = /^\s*(?:[-*•]|\d+[.)])\s*/;
/** A table name, not prose: at most three words, name characters only, no sentence-ending full stop. */
const looksLikeName = (s: string) => s.length > 0 && s.length <= 80 && s.split(/\s+/).length <= 3 && /^[\w .$"`'[\]-]+$/.test(s) && !/\s\S*\.$/.test(s);
const unquote = (s: string) => s.trim().replace(/^["'`[]+|["'`\]]+$/g, '').trim();

/** A JSON array of strings, else the first bracketed list of bare names (`[singer, concert]`). */
function fromJsonArray(text: string): string[] | undefined {
  const value = parseJsonAnswer(text, '[');
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  for (const match of text.matchAll(/\[[^[\]]*\]/g)) {
    const inner = match[0].slice(1, -1).split(',').map(unquote).filter(Boolean);
    if (inner.length > 0 && inner.every(looksLikeName)) return inner;
  }
  return undefined;
}

/**
 * The table names of a schema-linking answer. A JSON array (bare or fenced) is read strictly; otherwise one name per
 * bullet or numbered line, or a single comma-separated line, as models wander into those forms. Prose lines are skipped.
 */
export function parseTableList(raw: string): ParsedTableList {
  const fenced = /```[a-zA-Z]*[ \t]*\n([\s\S]*?)```/.exec(raw)?.[1];
  const text = fenced ?? raw;
  const json = fromJsonArray(text);
  if (json) return { ok: true, names: json.map(unquote).filter(Boolean) };
  const lines = text.split('\n').map((l) => l.replace(bullet, '').trim()).filter(Boolean)
    .map((l) => l.replace(/^(?:tables?|relevant tables?|answer)\s*:\s*/i, ''));
  const candidates = lines.length === 1 ? lines[0].split(/,|\band\b/) : lines;
  const names = candidates.filter((c) => looksLikeName(c.trim())).map(unquote).filter(Boolean);
  if (names.length === 0) return { ok: false, error: 'no table names found in the answer' };
  return { ok: true, names };
}
