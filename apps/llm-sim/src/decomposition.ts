/**
 * The simulated model's decomposition of a question: its clauses, each as a question, or the question itself when it
 * has one clause. A deterministic function of the question, so the index can find an item again from the
 * sub-questions it gave out (R3's generation prompt shows the sub-questions and not the question).
 */
export function decompositionOf(question: string): string[] {
  const parts = question
    .split(/\?|,\s*(?:and |which |who |that )|\band\b/i)
    .map((p) => p.trim())
    .filter((p) => p.length > 3);
  return parts.length > 1 ? parts.map((p) => `${p.replace(/[.?]$/, '')}?`) : [question];
}
