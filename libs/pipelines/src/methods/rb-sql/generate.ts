import { renderSchemaDdl } from '@sqlsweep/datasets';
import { listSlot, optionalSlot, stagesOf } from '../../define-stage';
import { parseFinalSql } from '../../parse-sql';
import { evidenceLine } from '../../llm-call';
import type { EstimateContext } from '../../stage-context';
import { loadTemplate } from '../../template';
import { renderShot } from './organize';
import { subSchema, type ChainSql, type FilteredSchema, type SelectedShots, type ShotDecomposition } from './types';

export const generateTemplate = loadTemplate('rb-sql.generate');
export const generatePlainTemplate = loadTemplate('rb-sql.generate-plain');

/** What generation shows besides the question: the filtered schema and the shots (with their decompositions when organized). */
interface GenerationInputs {
  readonly schema: FilteredSchema | undefined;
  readonly shots: SelectedShots | undefined;
  readonly decomposition?: readonly ShotDecomposition[];
}

function examplesText(inputs: GenerationInputs): string {
  const selected = inputs.shots;
  if (!selected || selected.shots.length === 0) return '';
  return `${selected.shots.map((shot, i) => renderShot(i + 1, shot, inputs.decomposition?.[i])).join('\n')}\n`;
}

/** Before retrieval runs the planner estimates with the full schema and no shots: an upper bound on the schema. */
function generationValues(ctx: Pick<EstimateContext, 'schema' | 'item'>, inputs: GenerationInputs | undefined): Record<string, string> {
  return {
    schema: renderSchemaDdl(subSchema(ctx.schema, inputs?.schema)),
    examples: inputs ? examplesText(inputs) : '',
    evidence_line: evidenceLine(ctx.item),
    question: ctx.item.question,
  };
}

/** The final SQL of an answer that is one query in a ```sql block (plain generation, correction): the shared parser. */
export function parseChainSql(raw: string): ChainSql {
  return parseFinalSql(raw);
}

/** The organized prompt's examples end with "SQL:" and the query, after a skeleton that is SQL-shaped too. */
const parseOrganized = (output: string): ChainSql => ({ ...parseFinalSql(output, { prefer: 'labelled', label: 'SQL' }), attempts: 0 });
const parseGeneration = (output: string): ChainSql => ({ ...parseChainSql(output), attempts: 0 });

/** `rb-sql.generate`: the organized prompt (sub-questions, skeleton, values, SQL), one decomposition per shot. */
export const generateStage = stagesOf('rb-sql').llm({
  name: 'rb-sql.generate', version: 3, template: generateTemplate, expectedOutputTokens: 200,
  inputs: { schema: optionalSlot<FilteredSchema>(), shots: optionalSlot<SelectedShots>(), decomposition: listSlot<ShotDecomposition>() },
  render: (ctx, inputs) => generationValues(ctx, inputs),
  parse: (response) => parseOrganized(response.output),
});

/** `rb-sql.generate-plain`: the skeleton-organization ablation (shots as question -> SQL). */
export const generatePlainStage = stagesOf('rb-sql').llm({
  name: 'rb-sql.generate-plain', version: 2, template: generatePlainTemplate, expectedOutputTokens: 60,
  inputs: { schema: optionalSlot<FilteredSchema>(), shots: optionalSlot<SelectedShots>() },
  render: (ctx, inputs) => generationValues(ctx, inputs),
  parse: (response) => parseGeneration(response.output),
});
