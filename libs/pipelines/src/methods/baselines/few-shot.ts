import { renderSchemaDdl } from '@sqlsweep/datasets';
import { definePipeline } from '../../define-pipeline';
import { slot, stagesOf } from '../../define-stage';
import type { MethodModule } from '../../method';
import type { StageItem } from '../../stage-context';
import { evidenceLine } from '../../llm-call';
import { loadTemplate } from '../../template';
import { parseFinalSql } from '../../parse-sql';
import { fixedShots, randomShots, type SelectedShots, type Shot } from './shot-selection';
import { evaluateStage, goldStage } from '../../stages/common';

export const fewShotTemplate = loadTemplate('baselines.few-shot');

type FewShotPipeline = 'fixed-few-shot' | 'random-few-shot';
/** The two pipelines' grids are one schema (`fewShotGrid`), so `few-shot.generate` serves both. */
const s = stagesOf('fixed-few-shot');

/** Examples in the zero-shot style, before the target: `Question:` then the SQL in a fenced block. */
export function renderShots(shots: readonly Shot[]): string {
  if (shots.length === 0) return '';
  const blocks = shots.map((s) => `${s.evidence ? `Evidence: ${s.evidence}\n` : ''}Question: ${s.question}\n\`\`\`sql\n${s.sql}\n\`\`\``);
  return `### Examples\n${blocks.join('\n\n')}\n\n`;
}

export const fewShotGenerate = s.llm({
  name: 'few-shot.generate', version: 2, template: fewShotTemplate, reads: ['shots'], expectedOutputTokens: 60,
  inputs: { shots: slot<SelectedShots>() },
  render: (ctx, inputs) => {
    // Before a run the shots are unknown: the estimate stands the item's own question and SQL in for each of them.
    const shots = inputs
      ? inputs.shots.shots
      : Array.from({ length: ctx.params.shots }, () => ({ itemId: '', question: ctx.item.question, evidence: ctx.item.evidence, sql: ctx.item.goldSql }));
    return { examples: renderShots(shots), schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question };
  },
  parse: (response) => parseFinalSql(response.output),
});

type Choose = (pool: StageItem[], k: number, seed: number, target: StageItem) => Shot[];

/** `<pipeline>.select`: the pipeline's choice of k training examples. */
function selectStage(pipeline: FewShotPipeline, choose: Choose) {
  return s.compute({
    name: `${pipeline}.select`, role: 'retrieval', version: 1, reads: ['shots', 'shotSeed'],
    run: async (ctx) => {
      const k = ctx.params.shots;
      const pool = await ctx.services.dataset.trainItems();
      if (k > 0 && pool.length === 0) throw new Error(`${ctx.item.itemId}: shots=${k} needs training examples, but the dataset version has no train split`);
      const shots = choose(pool, k, ctx.params.shotSeed, ctx.item);
      const output: SelectedShots = { shots, metrics: { 'shots.count': shots.length } };
      return { output };
    },
  });
}

const selectStages = {
  'fixed-few-shot': selectStage('fixed-few-shot', (pool, k, seed) => fixedShots(pool, k, seed)),
  'random-few-shot': selectStage('random-few-shot', (pool, k, seed, target) => randomShots(pool, k, seed, target)),
};

function fewShotPipeline(name: FewShotPipeline) {
  return definePipeline(name, {
    graph: (g) => {
      g.add(goldStage);
      const generated = g.add(fewShotGenerate, { shots: g.add(selectStages[name]) });
      g.add(evaluateStage, { prediction: generated });
    },
    // The select stage fails an item when shots > 0 and the train split is empty.
    datasetNeeds: (v) => (v.params.shots > 0 ? [{ knob: 'shots', value: v.params.shots, trainItems: 1 }] : []),
  });
}

export const baselinesMethod: MethodModule = {
  pipelines: { 'fixed-few-shot': fewShotPipeline('fixed-few-shot'), 'random-few-shot': fewShotPipeline('random-few-shot') },
  stages: [selectStages['fixed-few-shot'], selectStages['random-few-shot'], fewShotGenerate],
};
