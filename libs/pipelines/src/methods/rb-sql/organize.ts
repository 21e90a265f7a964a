import { classifySql } from '../../sql/classify';
import type { EstimateContext, LlmCall, LlmStage, StageContext } from '../../stage-context';
import { evidenceLine, templateCall } from '../../llm-call';
import { loadTemplate } from '../../template';
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

function decomposePrompt(shot: { question: string; evidence: string | null }, params: EstimateContext['params']): LlmCall {
  // A fixed length cap: the stage has no length knob, and a list of sub-questions is short.
  return { ...templateCall({ params }, decomposeTemplate, { evidence_line: evidenceLine(shot), question: shot.question }, 60), maxTokens: 256 };
}

/** `rb-sql.decompose-<i>`: least-to-most sub-questions of shot i (Zhou et al. 2023), for the example organization. */
export function decomposeShotStage(index: number): LlmStage {
  const shotOf = (ctx: StageContext): Shot => {
    const shot = (ctx.inputs.shots as SelectedShots).shots[index];
    if (!shot) throw new Error(`rb-sql.decompose-${index + 1}: the shots stage selected fewer than ${index + 1} shots`);
    return shot;
  };
  return {
    kind: 'llm',
    prompt: (ctx) => decomposePrompt(shotOf(ctx), ctx.params),
    // Before the shots exist the planner estimates with the target question, of similar length.
    estimate: (ctx) => decomposePrompt(ctx.item, ctx.params),
    parse: (response, ctx): ShotDecomposition => ({ itemId: shotOf(ctx).itemId, ...parseSubQuestions(response.output) }),
  };
}

/** The literals of a SQL query, in order, deduplicated: the "values extracted from the sub-questions". */
export function sqlValues(sql: string): string[] {
  return [...new Set(classifySql(sql).filter((p) => p.kind === 'value').map((p) => p.text))];
}

/**
 * One shot as RB-SQL 4.4 organizes it: question -> sub-questions -> SQL skeleton -> values -> filled SQL. Without
 * the organization, question -> SQL.
 */
export function renderShot(n: number, shot: Shot, decomposition: ShotDecomposition | undefined): string {
  const head = `### Example ${n}\n${shot.evidence ? `Evidence: ${shot.evidence}\n` : ''}Question: ${shot.question}\n`;
  if (!decomposition) return `${head}\`\`\`sql\n${shot.sql}\n\`\`\`\n`;
  const subs = decomposition.subQuestions.length > 0 ? decomposition.subQuestions : [shot.question];
  const values = sqlValues(shot.sql);
  return `${head}Sub-questions:\n${subs.map((q, i) => `${i + 1}. ${q}`).join('\n')}\nSQL skeleton: ${shot.skeleton}\n`
    + `Values: ${values.length > 0 ? values.join(', ') : '(none)'}\nSQL:\n\`\`\`sql\n${shot.sql}\n\`\`\`\n`;
}
