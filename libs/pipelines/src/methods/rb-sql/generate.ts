import { renderSchemaDdl } from '@sqlsweep/datasets';
import { parseSqlAnswer } from '../../parse-sql';
import type { EstimateContext, LlmCall, LlmStage, StageContext } from '../../stage-context';
import { evidenceLine, templateCall } from '../../llm-call';
import { loadTemplate, type PromptTemplate } from '../../template';
import { renderShot } from './organize';
import { subSchema, type ChainSql, type FilteredSchema, type SelectedShots, type ShotDecomposition } from './types';

export const generateTemplate = loadTemplate('rb-sql.generate');
export const generatePlainTemplate = loadTemplate('rb-sql.generate-plain');

/** Input names of the generation stage for the decomposition of shot i (1-based). */
export const decompositionInput = (i: number): string => `decomposition${i}`;

function examplesText(ctx: Pick<StageContext, 'inputs'>, organized: boolean): string {
  const selected = ctx.inputs.shots as SelectedShots | undefined;
  if (!selected || selected.shots.length === 0) return '';
  return `${selected.shots.map((shot, i) => renderShot(i + 1, shot, organized ? (ctx.inputs[decompositionInput(i + 1)] as ShotDecomposition) : undefined)).join('\n')}\n`;
}

function generationPrompt(template: PromptTemplate, ctx: EstimateContext, inputs: Record<string, unknown>): LlmCall {
  const schema = subSchema(ctx.schema, inputs.schema as FilteredSchema | undefined);
  return templateCall(ctx, template, {
    schema: renderSchemaDdl(schema),
    examples: examplesText({ inputs }, template === generateTemplate),
    evidence_line: evidenceLine(ctx.item),
    question: ctx.item.question,
  }, template === generateTemplate ? 200 : 60);
}

/** Parses the final SQL of a generation or correction answer; none is a recorded parse error, not a failure. */
export function parseChainSql(raw: string): ChainSql {
  const parsed = parseSqlAnswer(raw);
  return parsed.ok ? { sql: parsed.sql } : { sql: null, parseError: parsed.error };
}

function generationStage(template: PromptTemplate): LlmStage {
  return {
    kind: 'llm',
    prompt: (ctx) => generationPrompt(template, ctx, ctx.inputs),
    // Before retrieval runs the planner estimates with the full schema and no shots: an upper bound on the schema.
    estimate: (ctx) => generationPrompt(template, ctx, {}),
    parse: (response): ChainSql => ({ ...parseChainSql(response.output), attempts: 0 }),
  };
}

/** `rb-sql.generate`: the organized prompt (sub-questions, skeleton, values, SQL). */
export const generateStage = generationStage(generateTemplate);
/** `rb-sql.generate-plain`: the skeleton-organization ablation (shots as question -> SQL). */
export const generatePlainStage = generationStage(generatePlainTemplate);
