/** Parsers of the UCS-SQL stage answers: strict about the format the prompt asks for, forgiving about wrapping. */

import { parseJsonAnswer } from '../../parse-json';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Bulleted or numbered lines, when the model answered with a list instead of JSON. */
function listLines(raw: string): string[] {
  return raw.split('\n').map((l) => /^\s*(?:[-*•]|\d+[.)])\s+(.+?)\s*$/.exec(l)?.[1]).filter((l): l is string => !!l)
    .map((l) => l.replace(/^["'`]|["'`,]+$/g, ''));
}

function stringArray(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = value.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number').map((v) => String(v).trim()).filter(Boolean);
  return out.length === value.length ? out : undefined;
}

const dedupe = (xs: string[]): string[] => [...new Map(xs.map((x) => [x.toLowerCase(), x])).values()];

/** A JSON array of strings (or a bulleted list). */
export function parseStringList(raw: string, what: string): Parsed<string[]> {
  const json = stringArray(parseJsonAnswer(raw, '['));
  if (json) return { ok: true, value: dedupe(json) };
  const lines = listLines(raw);
  if (lines.length > 0) return { ok: true, value: dedupe(lines) };
  return { ok: false, error: `expected a JSON array of ${what}` };
}

export interface QuestionTerms { content: string[]; structure: string[] }

/** `{"content": [...], "structure": [...]}` — either list may be empty, both keys must be there. */
export function parseQuestionTerms(raw: string): Parsed<QuestionTerms> {
  const json = parseJsonAnswer(raw, '{');
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    const content = stringArray(o.content ?? o.content_terms);
    const structure = stringArray(o.structure ?? o.structure_terms);
    if (content && structure) return { ok: true, value: { content: dedupe(content), structure: dedupe(structure) } };
    return { ok: false, error: 'expected {"content": [strings], "structure": [strings]}' };
  }
  return { ok: false, error: 'no JSON object with "content" and "structure" term lists found' };
}

/**
 * The SQL functions and clauses the structure pipe may name; the answer is normalised to these (upper case, one
 * space) so that training and target sets intersect. `NESTED` stands for a subquery.
 */
export const SQL_FUNCTIONS = [
  'WHERE', 'JOIN', 'GROUP BY', 'HAVING', 'ORDER BY', 'ASC', 'DESC', 'LIMIT', 'DISTINCT', 'COUNT', 'SUM', 'AVG', 'MIN', 'MAX',
  'LIKE', 'BETWEEN', 'IN', 'NOT', 'IS NULL', 'CASE', 'IIF', 'CAST', 'SUBSTR', 'STRFTIME', 'ROUND', 'LENGTH', 'ABS',
  'UNION', 'INTERSECT', 'EXCEPT', 'NESTED', 'DIVISION',
] as const;

const FUNCTION_ALIASES: Record<string, string> = {
  'ORDER': 'ORDER BY', 'GROUP': 'GROUP BY', 'INNER JOIN': 'JOIN', 'LEFT JOIN': 'JOIN', 'SUBQUERY': 'NESTED', 'NESTED QUERY': 'NESTED',
  'IS NOT NULL': 'IS NULL', 'NOT NULL': 'IS NULL', '/': 'DIVISION', 'SUBSTRING': 'SUBSTR', 'IF': 'IIF', 'COUNT DISTINCT': 'COUNT',
};

/** Maps one named function to the vocabulary, or undefined (`AVG()`, `order by`, `Inner Join` all normalise). */
export function normalizeFunction(name: string): string | undefined {
  const n = name.toUpperCase().replace(/\(.*\)$/, '').replace(/[^A-Z/ ]+/g, ' ').replace(/\s+/g, ' ').trim();
  const aliased = FUNCTION_ALIASES[n] ?? n;
  return (SQL_FUNCTIONS as readonly string[]).includes(aliased) ? aliased : undefined;
}

export interface ParsedFunctions { functions: string[]; unknown: string[] }

export function parseFunctions(raw: string): Parsed<ParsedFunctions> {
  const list = parseStringList(raw, 'SQL functions');
  if (!list.ok) return list;
  const functions: string[] = [];
  const unknown: string[] = [];
  for (const name of list.value) {
    const f = normalizeFunction(name);
    if (f) { if (!functions.includes(f)) functions.push(f); } else unknown.push(name);
  }
  return { ok: true, value: { functions, unknown } };
}

/** The ids list of the selection prompt, e.g. `[3, 672, 19]`; ids are kept only if they were offered. */
export function parseChosenIds(raw: string, offered: readonly string[]): Parsed<string[]> {
  const list = parseStringList(raw, 'question ids');
  if (!list.ok) return list;
  const byId = new Map(offered.map((id) => [id.toLowerCase(), id]));
  const chosen = list.value.map((x) => byId.get(x.toLowerCase())).filter((x): x is string => x !== undefined);
  if (chosen.length === 0) return { ok: false, error: `none of the returned ids ${JSON.stringify(list.value)} was offered` };
  return { ok: true, value: [...new Set(chosen)] };
}
