/** Output of the simplification stages: null when the answer held no usable question (the original is used). */
export interface Simplified { simplified: string | null; parseError?: string }

/**
 * The simplified question from an LLM answer: the first non-empty line after dropping a label ("Simplified
 * question:"), list markers and surrounding quotes. Forgiving of chatter after it; empty or question-less answers
 * are a recorded parse error.
 */
export function parseSimplifiedQuestion(raw: string): Simplified {
  const lines = raw.replace(/```[a-z]*\n?|```/gi, '').split('\n').map((l) => l.trim()).filter(Boolean);
  for (const line of lines) {
    const text = line
      .replace(/^(?:[-*]|\d+[.)])\s+/, '')
      .replace(/^(?:\*\*)?(?:simplified|simpler|rewritten|new)(?: question)?(?:\*\*)?\s*:\s*/i, '')
      .replace(/^question\s*:\s*/i, '')
      .replace(/^["'“](.*)["'”]$/, '$1')
      .trim();
    if (/[A-Za-z]{2}/.test(text)) return { simplified: text };
  }
  return { simplified: null, parseError: 'no simplified question in the answer' };
}

/** Output of the explanation stages. */
export interface Explanation { explanation: string | null; parseError?: string; skipped?: boolean }

/** The natural-language explanation: the answer's prose, trimmed; an empty answer is a recorded parse error. */
export function parseExplanation(raw: string): Explanation {
  const text = raw.trim();
  return text ? { explanation: text.length > 2000 ? `${text.slice(0, 2000)}...` : text } : { explanation: null, parseError: 'empty explanation' };
}
