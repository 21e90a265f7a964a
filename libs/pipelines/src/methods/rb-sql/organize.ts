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
