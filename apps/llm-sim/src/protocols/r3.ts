import type { MethodProtocol } from './protocol';

/**
 * R3's generation prompt lists sub-questions (which the built-in detector would answer with sub-questions) but asks
 * for the query: answer it with the SQL, fenced. `sql` is already the corrupted copy when the model is wrong.
 */
export const r3Protocols: MethodProtocol[] = [
  {
    name: 'r3-generate',
    answersSql: true,
    detect: (t) => t.includes('is given as the list of its sub-questions') && t.includes('```sql'),
    render: ({ sql }) => `\`\`\`sql\n${sql}\n\`\`\``,
  },
];

/**
 * The prompt without R3's "Contextual Information" section (a header line, then one `- chunk` line per retrieved
 * chunk): retrieved text is data, like the question, never instructions. General-knowledge text says "skeleton" or
 * "explain" often enough to turn a decomposition prompt into another protocol's.
 */
export function withoutRetrievedContext(text: string): string {
  return text.replace(/^#### Contextual Information:\n(?:- .*(?:\n|$))*/gim, '');
}
