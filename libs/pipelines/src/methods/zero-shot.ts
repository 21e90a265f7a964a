import { renderSchemaDdl } from '@sqlsweep/datasets';
import type { PipelineDefinition, StageNode } from '../pipeline';
import { parseSqlAnswer } from '../parse-sql';
import type { EstimateContext, LlmCall, LlmStage } from '../stage-context';
import { evidenceLine, templateCall } from '../llm-call';
import { loadTemplate } from '../template';
import type { GeneratedSql } from '../stages/common';
import type { MethodModule } from '../method';
import { evaluateNode } from '../stages/common';

const template = loadTemplate('zero-shot.generate');

/**
 * The zero-shot generation node. Other pipelines that need a plain first draft (UCS-SQL's DAIL selection) use this
 * very node, so a draft is computed once for every pipeline at the same model, temperature and token limit.
 */
export const zeroShotGenerateNode: Readonly<StageNode> = {
  stage: 'zero-shot.generate', role: 'llm', version: 1, reads: ['model', 'temperature', 'maxTokens', 'sampleIndex', 'cacheNamespace'], inputs: {}, template,
};

/** Zero-shot baseline: schema as DDL + question -> SQL -> execute -> compare with gold. */
export const zeroShotPipeline: PipelineDefinition = {
  name: 'zero-shot',
  graph: (): StageNode[] => [
    { stage: 'gold', role: 'sql', version: 1, reads: [], inputs: {} },
    { ...zeroShotGenerateNode },
    evaluateNode('zero-shot.generate'),
  ],
};

function zeroShotPrompt(ctx: EstimateContext): LlmCall {
  return templateCall(ctx, template, { schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question }, 60);
}

/** Parses the answer into one SQL query; an answer without one is a recorded parse error, not a failure. */
export function parseGeneratedSql(output: string): GeneratedSql {
  const parsed = parseSqlAnswer(output);
  return parsed.ok ? { sql: parsed.sql } : { sql: null, parseError: parsed.error };
}

export const zeroShotGenerate: LlmStage = {
  kind: 'llm',
  prompt: zeroShotPrompt,
  estimate: zeroShotPrompt,
  parse: (response) => parseGeneratedSql(response.output),
};

export const zeroShotMethod: MethodModule = {
  pipelines: { 'zero-shot': zeroShotPipeline },
  stages: { 'zero-shot.generate': zeroShotGenerate },
};
