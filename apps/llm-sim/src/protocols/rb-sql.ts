import { lexSql } from '@sqlsweep/sql-sandbox';
import type { MethodProtocol } from './protocol';

const KEYWORDS = new Set(
  ('SELECT FROM WHERE AND OR NOT IN IS NULL LIKE BETWEEN GROUP BY ORDER HAVING LIMIT OFFSET JOIN INNER LEFT OUTER ON AS '
    + 'DISTINCT ASC DESC UNION INTERSECT EXCEPT CASE WHEN THEN ELSE END CAST REAL INTEGER TEXT EXISTS').split(' '),
);

/** The simulated model's SQL skeleton: names masked by position, literals as [value]. */
function skeletonOf(sql: string): string {
  let previousWord = '';
  return lexSql(sql).map((t) => {
    if (t.kind === 'string' || (t.kind === 'word' && /^[0-9]/.test(t.text))) return '[value]';
    if (t.kind !== 'word' && t.kind !== 'quoted') return t.kind === 'space' ? ' ' : t.text;
    const upper = t.text.toUpperCase();
    const before = previousWord;
    previousWord = upper;
    if (t.kind === 'word' && KEYWORDS.has(upper)) return upper;
    if (t.kind === 'word' && /^(COUNT|SUM|AVG|MIN|MAX|IIF|STRFTIME|SUBSTR|LENGTH|ROUND|ABS)$/.test(upper)) return upper;
    return before === 'FROM' || before === 'JOIN' ? '[table_name]' : '[column_name]';
  }).join('').replace(/\s+/g, ' ').trim();
}

function valuesOf(sql: string): string[] {
  return [...new Set(lexSql(sql).filter((t) => t.kind === 'string' || (t.kind === 'word' && /^[0-9]/.test(t.text))).map((t) => t.text))];
}

function subQuestionsOf(question: string): string[] {
  const parts = question.split(/,\s*(?:and |which |who |that )|\band\b/i).map((p) => p.trim().replace(/[.?]$/, '')).filter((p) => p.length > 3);
  return parts.length > 1 ? [...parts.map((p) => `${p}?`), question] : [question];
}

/** The values step as the prompt's examples show it: each literal a sub-question says, with that sub-question's number. */
function subQuestionValuesOf(subQuestions: string[], sql: string): string {
  const found = valuesOf(sql).flatMap((literal) => {
    const text = literal.replace(/^'(.*)'$/s, '$1').replace(/^%+|%+$/g, '').toLowerCase();
    const said = new RegExp(`(?<!\\w)${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\w)`, 'i');
    const index = text ? subQuestions.findIndex((q) => said.test(q)) : -1;
    return index >= 0 ? [`${literal} (sub-question ${index + 1})`] : [];
  });
  return found.length > 0 ? found.join(', ') : '(none in the sub-questions)';
}

/**
 * RB-SQL's organized generation (skeleton -> values -> filled SQL): answers in the same steps as the prompt's examples,
 * from the target's gold (or the corrupted SQL when the simulated model is wrong).
 */
const rbSqlGenerate: MethodProtocol = {
  name: 'rb-sql.generate',
  answersSql: true,
  detect: (t) => t.includes('fill the sql skeleton with the values to obtain the query'),
  render: ({ item, sql }) => {
    const subQuestions = subQuestionsOf(item.question);
    return `Sub-questions:\n${subQuestions.map((q, i) => `${i + 1}. ${q}`).join('\n')}\n`
      + `SQL skeleton: ${skeletonOf(sql)}\nValues: ${subQuestionValuesOf(subQuestions, sql)}\nSQL:\n\`\`\`sql\n${sql}\n\`\`\``;
  },
};

export const rbSqlProtocols: MethodProtocol[] = [rbSqlGenerate];
