import { answerProbability, commonDraw, type AnswerWeights } from './answer-model';
import { corruptSql, wrongTable, type CorruptionKind } from './corrupt-sql';
import { decompositionOf } from './decomposition';
import type { GoldIndex, GoldItem } from './gold-index';
import { readPrompt, type PromptFeatures } from './prompt-features';
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
  /** The probability of the gold the answer was drawn with. */
  probability: number;
  /** What the prompt gave towards the gold (prompt-features.ts). */
  features: PromptFeatures;
}

/** What an answer was drawn from: response headers carry it, and batch result lines as `sim` (no per-result headers there). */
export type SimulationMetadata = Pick<SimAnswer, 'probability' | 'features'>;

export interface AnswerParams {
  seed: number;
  model: string;
  /** The model's answer model (configs/llm-sim.yaml `weights:`); without it, `accuracy` is the probability. */
  weights?: AnswerWeights;
  /** A fixed probability of the gold whatever the prompt says (test models). */
  accuracy?: number;
  temperature: number;
  sampleIndex: number;
}

/** The contributed protocols (protocols/) whose answer is a SQL query, by stage protocol name. */
const SQL_METHOD_PROTOCOLS: ReadonlySet<StageProtocol> = new Set(methodProtocols.filter((p) => p.answersSql).map((p): StageProtocol => `method:${p.name}`));

/** Whether a protocol's answer is a SQL query: the answer model's schema terms apply to these only. */
export function answersSql(protocol: StageProtocol): boolean {
  return protocol === 'sql' || SQL_METHOD_PROTOCOLS.has(protocol);
}

/**
 * The probability of the gold for this prompt. SQL protocols: the answer model on the prompt's features. Stages that
 * need no schema (decomposition, simplification, table lists, skeletons, explanations) are judged as if the schema
 * were whole and clean: their other features (evidence, examples, hints) still count.
 */
function probabilityOf(protocol: StageProtocol, features: PromptFeatures, p: AnswerParams): number {
  if (!p.weights) return p.accuracy ?? 0;
  if (answersSql(protocol)) return answerProbability(features, p.weights);
  return answerProbability({ ...features, schemaRecall: 1, goldReachable: true, noiseTables: 0, noiseColumns: 0 }, p.weights);
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
 * The simulated model's answer: the gold when the common draw of (seed, model, question, sample index) falls below
 * the probability the prompt earns (answer-model.ts), otherwise a realistic mistake. The draw ignores the prompt and
 * the temperature (common random numbers: a prompt that gives more can only turn a wrong answer right); at
 * temperature 0 every sample is sample 0, as a real model repeats itself. Which mistake is made is seeded by
 * (seed, model, item, temperature, sample). A prompt lacking a gold table gets a mistake that uses a table it shows.
 */
export function answerFor(index: GoldIndex, item: GoldItem, protocol: StageProtocol, p: AnswerParams, prompt = ''): SimAnswer {
  const sample = p.temperature > 0 ? p.sampleIndex : 0;
  const reading = readPrompt(prompt, item, index);
  const probability = probabilityOf(protocol, reading.features, p);
  const correct = commonDraw(p.seed, p.model, item.question, sample) < probability;
  const rng = seededRng(p.seed, p.model, item.dbId, item.question, p.temperature, sample);
  const base = { protocol, correct, item, probability, features: reading.features };
  if (correct) return { ...base, text: render(protocol, item, item.sql, rng, true, prompt) };
  const unreachable = p.weights !== undefined && answersSql(protocol) && !reading.features.goldReachable;
  const corruption = (unreachable ? wrongTable(item.sql, reading.missingGoldTables, reading.shownTables, rng) : null)
    ?? corruptSql(item.sql, rng, index.columnsNear(item));
  let text = render(protocol, item, corruption.sql, rng, false, prompt);
  // RB-SQL's correction prompt asks for this line when the schema shown lacks what the question needs.
  if (unreachable && /write the line MISSING SCHEMA/i.test(prompt)) text = `MISSING SCHEMA\n${text}`;
  return { ...base, text, corruption: corruption.kind };
}
