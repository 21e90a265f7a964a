import { corruptSql, type CorruptionKind } from './corrupt-sql';
import { decompositionOf } from './decomposition';
import type { GoldIndex, GoldItem } from './gold-index';
import { seededRng, type Rng } from './rng';

import { methodProtocols } from './protocols';

/** A built-in protocol, or the name of a protocol a pipeline contributed (protocols/). */
export type StageProtocol = 'sql' | 'tables' | 'sub_questions' | 'skeleton' | 'explanation' | `method:${string}`;

export interface SimAnswer {
  text: string;
  protocol: StageProtocol;
  correct: boolean;
  corruption?: CorruptionKind;
  item: GoldItem;
}

export interface AnswerParams {
  seed: number;
  model: string;
  accuracy: number;
  temperature: number;
  sampleIndex: number;
}

/**
 * Which stage protocol the prompt asks for, read from its instructions (system text and the last user turn).
 * Checked from the most specific cue to the most generic; SQL is the default.
 */
export function detectProtocol(instructions: string): StageProtocol {
  const t = instructions.toLowerCase();
  const contributed = methodProtocols.find((p) => p.detect(t));
  if (contributed) return `method:${contributed.name}`;
  if (/\bskeleton\b/.test(t)) return 'skeleton';
  if (/\bsub-?questions?\b|\bdecompose\b/.test(t)) return 'sub_questions';
  // "Use only the relevant tables" in a SQL prompt must not turn it into a table-list prompt.
  const wantsSql = /```sql|\bsql(?:ite)? (?:query|statement)\b/.test(t);
  if (!wantsSql && /\b(relevant|needed|required|list (the|of)) tables?\b|\btable list\b|\bschema link/.test(t)) return 'tables';
  if (!wantsSql && /\bexplain\b|\bexplanation\b/.test(t)) return 'explanation';
  return 'sql';
}

function tablesOf(sql: string): string[] {
  const names = [...sql.matchAll(/\b(?:FROM|JOIN)\s+[`"]?(\w+)[`"]?/gi)].map((m) => m[1]!);
  return [...new Set(names)];
}

function skeletonOf(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, '_')
    .replace(/(?<![\w.])\d+(?:\.\d+)?(?![\w.])/g, '_')
    .replace(/\b(?:\w+\.)?(?!SELECT|FROM|WHERE|AND|OR|NOT|IN|IS|NULL|LIKE|BETWEEN|GROUP|BY|ORDER|HAVING|LIMIT|JOIN|INNER|LEFT|ON|AS|DISTINCT|COUNT|SUM|AVG|MIN|MAX|ASC|DESC|UNION|INTERSECT|EXCEPT|CASE|WHEN|THEN|ELSE|END|CAST|REAL|INTEGER)\b[A-Za-z_]\w*\b/gi, '_');
}

/** The decomposition; a wrong answer leaves one sub-question out (GoldIndex.findTarget still finds the item). */
function subQuestionsOf(item: GoldItem, rng: Rng, correct: boolean): string[] {
  const list = decompositionOf(item.question);
  if (!correct && list.length > 1) list.splice(Math.floor(rng() * list.length), 1);
  return list;
}

function render(protocol: StageProtocol, item: GoldItem, sql: string, rng: Rng, correct: boolean, prompt: string): string {
  if (protocol.startsWith('method:')) {
    const contributed = methodProtocols.find((p) => `method:${p.name}` === protocol);
    if (!contributed) throw new Error(`unknown simulator protocol ${protocol}`);
    return contributed.render({ item, sql, rng, correct, prompt });
  }
  switch (protocol) {
    case 'sql':
      return `\`\`\`sql\n${sql}\n\`\`\``;
    case 'skeleton':
      return `\`\`\`sql\n${skeletonOf(sql)}\n\`\`\``;
    case 'tables':
      return JSON.stringify(tablesOf(sql));
    case 'sub_questions':
      return subQuestionsOf(item, rng, correct).map((q, i) => `${i + 1}. ${q}`).join('\n');
    case 'explanation':
      return `The query reads ${tablesOf(sql).join(', ') || 'the tables'} to answer "${item.question}":\n\`\`\`sql\n${sql}\n\`\`\``;
    default:
      throw new Error(`unknown simulator protocol ${protocol}`);
  }
}

/**
 * The simulated model's answer: the gold with probability `accuracy`, otherwise a realistic mistake, decided
 * deterministically by (seed, model, question, temperature, sample index). At temperature 0 every sample
 * is the same, as with a real model.
 */
export function answerFor(index: GoldIndex, item: GoldItem, protocol: StageProtocol, p: AnswerParams, prompt = ''): SimAnswer {
  const sample = p.temperature > 0 ? p.sampleIndex : 0;
  const rng = seededRng(p.seed, p.model, item.dbId, item.question, p.temperature, sample);
  const correct = rng() < p.accuracy;
  if (correct) return { text: render(protocol, item, item.sql, rng, true, prompt), protocol, correct, item };
  const corruption = corruptSql(item.sql, rng, index.columnsNear(item));
  return { text: render(protocol, item, corruption.sql, rng, false, prompt), protocol, correct, corruption: corruption.kind, item };
}
