import type { MethodProtocol } from './protocol';

/**
 * R3's generation prompt lists sub-questions (which the built-in detector would answer with sub-questions) but asks
 * for the query: answer it with the SQL, fenced. `sql` is already the corrupted copy when the model is wrong.
 */
export const r3Protocols: MethodProtocol[] = [
  {
    name: 'r3-generate',
    detect: (t) => t.includes('is given as the list of its sub-questions') && t.includes('```sql'),
    render: ({ sql }) => `\`\`\`sql\n${sql}\n\`\`\``,
  },
];
