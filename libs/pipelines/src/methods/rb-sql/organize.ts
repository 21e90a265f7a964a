import { RB_SQL_MAX_SHOTS } from '@sqlsweep/contracts';
import { classifySql } from '../../sql/classify';
import { from, stagesOf } from '../../define-stage';
import { evidenceLine } from '../../llm-call';
import { loadTemplate } from '../../template';
import { selectShotsStage } from './shots';
import type { SelectedShots, Shot, ShotDecomposition } from './types';

export const decomposeTemplate = loadTemplate('rb-sql.decompose');

/**
 * Parses a numbered (or bulleted) list of sub-questions. Forgiving about numbering style and surrounding prose;
 * lines that are not list items are ignored once a list has started.
 */
export function parseSubQuestions(raw: string): { subQuestions: string[]; parseError?: string } {
  const items = raw.split('\n').map((line) => /^\s*(?:\d+[.)]|[-*•]|Sub-?question\s*\d+\s*:)\s*(.+?)\s*$/i.exec(line)?.[1]).filter((x): x is string => Boolean(x));
  if (items.length > 0) return { subQuestions: items };
  const single = raw.trim();
  if (single && !single.includes('\n') && single.length < 400) return { subQuestions: [single] };
  return { subQuestions: [], parseError: 'no numbered list of sub-questions in the answer' };
}

function shotOf(shots: SelectedShots, index: number): Shot {
  const shot = shots.shots[index];
  if (!shot) throw new Error(`rb-sql.decompose-${index + 1}: the shots stage selected fewer than ${index + 1} shots`);
  return shot;
}

/** `rb-sql.decompose-<i>`: least-to-most sub-questions of shot i (Zhou et al. 2023), for the example organization. */
function decomposeShotStage(index: number) {
  return stagesOf('rb-sql').llm({
    name: `rb-sql.decompose-${index + 1}`, version: 1, template: decomposeTemplate, expectedOutputTokens: 60,
    // A fixed length cap: the stage has no length knob, and a list of sub-questions is short.
    maxTokens: { fixed: 256 },
    inputs: { shots: from(selectShotsStage) },
    render: (ctx, inputs) => {
      // Before the shots exist the planner estimates with the target question, of similar length.
      const shot = inputs ? shotOf(inputs.shots, index) : ctx.item;
      return { evidence_line: evidenceLine(shot), question: shot.question };
    },
    parse: (response, ctx): ShotDecomposition => ({ itemId: shotOf(ctx.inputs.shots, index).itemId, ...parseSubQuestions(response.output) }),
  });
}

/** `rb-sql.decompose-1` … `-<RB_SQL_MAX_SHOTS>`: the graph and the registry use these same definitions. */
export const decomposeStages = Array.from({ length: RB_SQL_MAX_SHOTS }, (_, i) => decomposeShotStage(i));

/** The literals of a SQL query, in order, deduplicated. */
export function sqlValues(sql: string): string[] {
  return [...new Set(classifySql(sql).filter((p) => p.kind === 'value').map((p) => p.text))];
}

/** A literal as a question would write it: without its quotes (a doubled quote undone). */
function literalText(literal: string): string {
  const quoted = /^(['"`])([\s\S]*)\1$/.exec(literal);
  return quoted ? quoted[2].replaceAll(quoted[1] + quoted[1], quoted[1]) : literal;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One value of the "values" step: the literal the SQL uses and the sub-question (1-based) it is taken from. */
export interface SubQuestionValue { value: string; subQuestion: number }

/**
 * RB-SQL 4.3.2's values step: "extract exact values from the sub-question". A literal of the shot's SQL is a value
 * of sub-question i when the sub-question says it (case-insensitive, as a whole word; the first sub-question that
 * says it). Literals no sub-question says (LIMIT counts, codes the evidence maps to) are not values of this step:
 * the model fills them from the schema and evidence, as the example shows in its SQL.
 */
export function subQuestionValues(subQuestions: readonly string[], sql: string): SubQuestionValue[] {
  const found: SubQuestionValue[] = [];
  for (const literal of sqlValues(sql)) {
    const text = literalText(literal).replace(/^%+|%+$/g, '').trim();
    if (!text) continue;
    const said = new RegExp(`(?<![\\w])${escapeRegExp(text).replace(/\s+/g, '\\s+')}(?![\\w])`, 'i');
    const index = subQuestions.findIndex((q) => said.test(q));
    if (index >= 0) found.push({ value: literal, subQuestion: index + 1 });
  }
  return found;
}

/**
 * One shot as RB-SQL 4.4 organizes it: question -> sub-questions -> SQL skeleton -> values from the sub-questions
 * -> filled SQL. Without the organization, question -> SQL.
 */
export function renderShot(n: number, shot: Shot, decomposition: ShotDecomposition | undefined): string {
  const head = `### Example ${n}\n${shot.evidence ? `Evidence: ${shot.evidence}\n` : ''}Question: ${shot.question}\n`;
  if (!decomposition) return `${head}\`\`\`sql\n${shot.sql}\n\`\`\`\n`;
  const subs = decomposition.subQuestions.length > 0 ? decomposition.subQuestions : [shot.question];
  const values = subQuestionValues(subs, shot.sql);
  const valuesText = values.length > 0 ? values.map((v) => `${v.value} (sub-question ${v.subQuestion})`).join(', ') : '(none in the sub-questions)';
  return `${head}Sub-questions:\n${subs.map((q, i) => `${i + 1}. ${q}`).join('\n')}\nSQL skeleton: ${shot.skeleton}\n`
    + `Values: ${valuesText}\nSQL:\n\`\`\`sql\n${shot.sql}\n\`\`\`\n`;
}
