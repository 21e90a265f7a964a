import { parseJsonAnswer } from '../../parse-json';

export type ParsedSubQuestions = { ok: true; subQuestions: string[] } | { ok: false; error: string };

const marker = /^\s*(?:[-*•]|\(?\d+[.):]|(?:sub-?question|step)\s*\d*\s*[:.)-])\s*/i;

/**
 * The sub-questions of a decomposition answer: a JSON array of strings, else one per numbered/bulleted line. Heading
 * lines ("Sub-questions:") are skipped; unmarked prose lines count only when no line carries a list marker.
 */
export function parseSubQuestions(raw: string): ParsedSubQuestions {
  const value = parseJsonAnswer(raw, '[');
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v.trim())) {
    return { ok: true, subQuestions: (value as string[]).map((v) => v.trim()) };
  }
  const lines = raw.replace(/```[a-zA-Z]*/g, '').split('\n').map((l) => l.trim()).filter(Boolean);
  const marked = lines.filter((l) => marker.test(l));
  const chosen = (marked.length > 0 ? marked : lines)
    .map((l) => l.replace(marker, '').trim())
    .filter((l) => l && !/:$/.test(l));
  if (chosen.length === 0) return { ok: false, error: 'no sub-questions found in the answer' };
  return { ok: true, subQuestions: chosen };
}
