import type { MethodProtocol } from './protocol';

/** Plainer words a simplification uses; applied to the gold question, so a simplified question keeps its intent. */
const PLAINER: Array<[RegExp, string]> = [
  [/^(?:please\s+)?(?:could|can|would) you (?:please\s+)?(?:tell me|list|show|give)\s*/i, 'List '],
  [/^(?:please\s+)?(?:list|show|give|return|find|display)(?: me)?(?: all)?\s+/i, 'List '],
  [/\bhow many\b/gi, 'the number of'],
  [/\bwhat is the total\b/gi, 'what is the sum'],
  [/\bthe greatest\b|\bthe largest\b|\bthe biggest\b/gi, 'the highest'],
  [/\bthe fewest\b|\bthe smallest\b/gi, 'the lowest'],
  [/\bin descending order\b/gi, 'from high to low'],
  [/\bin ascending order\b/gi, 'from low to high'],
  [/\bwhich\b/gi, 'what'],
];

function simplify(question: string): string {
  let q = question.trim();
  for (const [pattern, plain] of PLAINER) q = q.replace(pattern, plain);
  return q.charAt(0).toUpperCase() + q.slice(1);
}

/** DR-Chain 3.1.1: "Replace the words as far as possible to simplify the question ...". A wrong model drops a word. */
const simplifyQuestion: MethodProtocol = {
  name: 'dr-chain.simplify',
  detect: (t) => t.includes('to simplify the question'),
  render: ({ item, rng, correct }) => {
    const simple = simplify(item.question);
    if (correct) return simple;
    const words = simple.split(' ');
    if (words.length > 3) words.splice(1 + Math.floor(rng() * (words.length - 1)), 1);
    return words.join(' ');
  },
};

function tablesOf(sql: string): string[] {
  return [...new Set([...sql.matchAll(/\b(?:FROM|JOIN)\s+[`"]?(\w+)[`"]?/gi)].map((m) => m[1]!))];
}

/**
 * DR-Chain 3.2.1 (2): "What does this SQL query mean? What are the differences ...". The explanation describes the
 * query shown in the prompt; the simulated model notices a difference from the gold exactly when it is "correct"
 * and the shown query is not the gold.
 */
const explainSql: MethodProtocol = {
  name: 'dr-chain.explain',
  detect: (t) => t.includes('what does this sql query mean'),
  render: ({ item, sql, correct, prompt }) => {
    const shown = /Predicted query:\s*```sql\s*\n([\s\S]*?)```/i.exec(prompt)?.[1]?.trim() ?? '';
    const tables = tablesOf(shown);
    const meaning = `The query reads ${tables.length ? tables.join(', ') : 'no known table'} and computes: ${shown.replace(/\s+/g, ' ')}.`;
    const same = shown.replace(/\s+/g, ' ').trim().toLowerCase() === item.sql.replace(/\s+/g, ' ').trim().toLowerCase();
    if (same || !correct) return `${meaning} Its meaning matches the question.`;
    return `${meaning} It differs from the question, which would be answered by: ${sql}`;
  },
};

/**
 * DR-Chain 3.2.2: a revision prompt, answered with SQL. Whether the revision is right is the answer model's call on
 * the prompt's features: the execution feedback (an error, an empty result), the explanation and the related contents
 * it shows raise the probability over the generation prompt's, so some wrong drafts get fixed (common random numbers).
 */
const reviseSql: MethodProtocol = {
  name: 'dr-chain.revise',
  answersSql: true,
  detect: (t) => t.includes('write the corrected sqlite query'),
  render: ({ sql }) => `\`\`\`sql\n${sql}\n\`\`\``,
};

export const drChainProtocols: MethodProtocol[] = [simplifyQuestion, explainSql, reviseSql];
