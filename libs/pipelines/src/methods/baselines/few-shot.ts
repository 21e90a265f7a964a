import type { VariantSpec } from '@sqlsweep/contracts';
import { renderSchemaDdl } from '@sqlsweep/datasets';
import type { MethodModule } from '../../method';
import type { PipelineDefinition, StageNode } from '../../pipeline';
import type { ComputeStage, EstimateContext, LlmCall, LlmStage, StageContext, StageItem } from '../../stage-context';
import { evidenceLine, templateCall } from '../../llm-call';
import { loadTemplate } from '../../template';
import { parseGeneratedSql } from '../zero-shot';
import { fixedShots, randomShots, type SelectedShots, type Shot } from './shot-selection';
import { evaluateNode } from '../../stages/common';

export const fewShotTemplate = loadTemplate('baselines.few-shot');

const LLM_READS = ['model', 'temperature', 'maxTokens', 'sampleIndex', 'cacheNamespace'];

function fewShotPipeline(name: 'fixed-few-shot' | 'random-few-shot'): PipelineDefinition {
  return {
    name,
    graph: (_variant: VariantSpec): StageNode[] => [
      { stage: 'gold', role: 'sql', version: 1, reads: [], inputs: {} },
      { stage: `${name}.select`, role: 'retrieval', version: 1, reads: ['shots', 'shotSeed'], inputs: {} },
      { stage: 'few-shot.generate', role: 'llm', version: 1, reads: [...LLM_READS, 'shots'], inputs: { shots: `${name}.select` }, template: fewShotTemplate },
      evaluateNode('few-shot.generate'),
    ],
    // The select stage fails an item when shots > 0 and the train split is empty.
    datasetNeeds: (v) => (Number(v.params.shots) > 0 ? [{ knob: 'shots', value: v.params.shots, trainItems: 1 }] : []),
  };
}

function selectStage(choose: (pool: StageItem[], k: number, seed: number, ctx: StageContext) => Shot[]): ComputeStage {
  return {
    kind: 'compute',
    run: async (ctx) => {
      const k = Number(ctx.params.shots);
      const pool = await ctx.services.dataset.trainItems();
      if (k > 0 && pool.length === 0) throw new Error(`${ctx.item.itemId}: shots=${k} needs training examples, but the dataset version has no train split`);
      const shots = choose(pool, k, Number(ctx.params.shotSeed), ctx);
      const output: SelectedShots = { shots, metrics: { 'shots.count': shots.length } };
      return { output };
    },
  };
}

/** Examples in the zero-shot style, before the target: `Question:` then the SQL in a fenced block. */
export function renderShots(shots: readonly Shot[]): string {
  if (shots.length === 0) return '';
  const blocks = shots.map((s) => `${s.evidence ? `Evidence: ${s.evidence}\n` : ''}Question: ${s.question}\n\`\`\`sql\n${s.sql}\n\`\`\``);
  return `### Examples\n${blocks.join('\n\n')}\n\n`;
}

function fewShotPrompt(ctx: EstimateContext): LlmCall {
  // Before a run the shots are unknown: the estimate stands the item's own question and SQL in for each of them.
  const shots = 'inputs' in ctx
    ? ((ctx as StageContext).inputs.shots as SelectedShots).shots
    : Array.from({ length: Number(ctx.params.shots ?? 0) }, () => ({ itemId: '', question: ctx.item.question, evidence: ctx.item.evidence, sql: ctx.item.goldSql }));
  return templateCall(ctx, fewShotTemplate, {
    examples: renderShots(shots), schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
  }, 60);
}

export const fewShotGenerate: LlmStage = {
  kind: 'llm',
  prompt: fewShotPrompt,
  estimate: fewShotPrompt,
  parse: (response) => parseGeneratedSql(response.output),
};

export const baselinesMethod: MethodModule = {
  pipelines: { 'fixed-few-shot': fewShotPipeline('fixed-few-shot'), 'random-few-shot': fewShotPipeline('random-few-shot') },
  stages: {
    'fixed-few-shot.select': selectStage((pool, k, seed) => fixedShots(pool, k, seed)),
    'random-few-shot.select': selectStage((pool, k, seed, ctx) => randomShots(pool, k, seed, ctx.item)),
    'few-shot.generate': fewShotGenerate,
  },
};
