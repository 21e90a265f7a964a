import type { VariantSpec } from '@sqlsweep/contracts';
import type { MethodModule } from '../../method';
import type { PipelineDefinition, StageNode } from '../../pipeline';
import {
  contentStage, generateStage, preselectStage, questionStage, selectShotsStage, shotCandidatesStage, skeletonStage, structureStage, templates,
} from './stages';
import { evaluateNode } from '../../stages/common';
import { zeroShotGenerateNode } from '../zero-shot';

const LLM_READS = ['model', 'temperature', 'maxTokens', 'sampleIndex', 'cacheNamespace'];

/** What the candidates stage reads and gets for each way of selecting shots. */
function candidatesNode(selection: 'ss-qe' | 'fixed' | 'dail'): StageNode {
  const node = (reads: string[], inputs: Record<string, string>): StageNode => ({ stage: 'ucs-sql.shot-candidates', role: 'retrieval', version: 1, reads, inputs });
  switch (selection) {
    case 'ss-qe':
      return node(['shots', 'shotSelection', 'theta1', 'theta2'], {
        content: 'ucs-sql.content', structure: 'ucs-sql.structure', trainContent: 'ucs-sql.train-content[*]', trainStructure: 'ucs-sql.train-structure[*]',
      });
    case 'dail':
      return node(['shots', 'shotSelection', 'dailThreshold'], { draft: zeroShotGenerateNode.stage });
    case 'fixed':
      return node(['shots', 'shotSelection'], {});
  }
}

/**
 * The UCS-SQL stage graph of one variant. Ablations remove stages from the graph (so the remaining stages keep the
 * keys they share with the full method); SS-QE's own information extraction of the target and of every training
 * question (Algorithm 1, lines 2 and 5) runs whenever SS-QE selects shots, even in ablations that hide it from the
 * SQL stage. DAIL selection (Table 5) drafts the target's SQL with the zero-shot baseline's own node, so that draft
 * is shared with any zero-shot variant at the same model and settings.
 */
export function ucsSqlGraph(variant: VariantSpec): StageNode[] {
  const p = variant.params;
  const shots = Number(p.shots);
  const selection = p.shotSelection as 'ss-qe' | 'fixed' | 'dail';
  const ssQe = shots > 0 && selection === 'ss-qe';
  const stagesOn = p.questionTransitional === true;
  const transitionalOn = stagesOn && p.transitional === true;
  const useContent = transitionalOn && p.contentPipe === true;
  const useStructure = transitionalOn && p.structurePipe === true;
  const useTermsDirectly = stagesOn && !transitionalOn;
  const preselect: Record<string, string> = p.preselect === true ? { preselect: 'ucs-sql.preselect' } : {};

  const nodes: StageNode[] = [{ stage: 'gold', role: 'sql', version: 1, reads: [], inputs: {} }];
  if (p.preselect === true) {
    nodes.push({ stage: 'ucs-sql.preselect', role: 'llm', version: 1, reads: [...LLM_READS, 'preselectAboveColumns'], inputs: {}, template: templates.preselect });
  }
  if (stagesOn || ssQe) nodes.push({ stage: 'ucs-sql.question', role: 'llm', version: 1, reads: LLM_READS, inputs: {}, template: templates.question });
  if (useContent || ssQe) {
    nodes.push({ stage: 'ucs-sql.content', role: 'llm', version: 1, reads: LLM_READS, inputs: { terms: 'ucs-sql.question', ...preselect }, template: templates.content });
  }
  if (useStructure || ssQe) {
    nodes.push({ stage: 'ucs-sql.structure', role: 'llm', version: 1, reads: LLM_READS, inputs: { terms: 'ucs-sql.question' }, template: templates.structure });
  }
  if (ssQe) {
    nodes.push(
      { stage: 'ucs-sql.train-question', role: 'llm', version: 1, reads: LLM_READS, inputs: {}, scope: 'train-items', template: templates.question },
      { stage: 'ucs-sql.train-content', role: 'llm', version: 1, reads: LLM_READS, inputs: { terms: 'ucs-sql.train-question' }, scope: 'train-items', template: templates.content },
      { stage: 'ucs-sql.train-structure', role: 'llm', version: 1, reads: LLM_READS, inputs: { terms: 'ucs-sql.train-question' }, scope: 'train-items', template: templates.structure },
    );
  }
  if (shots > 0) {
    if (selection === 'dail') nodes.push({ ...zeroShotGenerateNode });
    nodes.push(
      candidatesNode(selection),
      { stage: 'ucs-sql.select-shots', role: 'llm', version: 1, reads: LLM_READS, inputs: { candidates: 'ucs-sql.shot-candidates' }, template: templates.selectShots },
    );
  }
  const hints: Record<string, string> = {
    ...(useContent ? { content: 'ucs-sql.content' } : {}),
    ...(useStructure ? { structure: 'ucs-sql.structure' } : {}),
    ...(useTermsDirectly ? { terms: 'ucs-sql.question' } : {}),
    ...(shots > 0 ? { shots: 'ucs-sql.select-shots' } : {}),
  };
  if (p.sqlStage === true) {
    const { content: _c, ...skeletonInputs } = hints;
    nodes.push({ stage: 'ucs-sql.skeleton', role: 'llm', version: 1, reads: LLM_READS, inputs: skeletonInputs, template: templates.skeleton });
  }
  nodes.push(
    {
      stage: 'ucs-sql.generate', role: 'llm', version: 1, reads: LLM_READS, template: templates.generate,
      inputs: { ...preselect, ...hints, ...(p.sqlStage === true ? { skeleton: 'ucs-sql.skeleton' } : {}) } as Record<string, string>,
    },
    evaluateNode('ucs-sql.generate'),
  );
  return nodes;
}

export const ucsSqlPipeline: PipelineDefinition = {
  name: 'ucs-sql',
  graph: ucsSqlGraph,
  // Without training questions every shot selection comes back empty: the variant would silently be zero-shot.
  datasetNeeds: (v) => (Number(v.params.shots) > 0 ? [{ knob: 'shots', value: v.params.shots, trainItems: 1 }] : []),
};

export const ucsSqlMethod: MethodModule = {
  pipelines: { 'ucs-sql': ucsSqlPipeline },
  stages: {
    'ucs-sql.preselect': preselectStage,
    'ucs-sql.question': questionStage,
    'ucs-sql.content': contentStage,
    'ucs-sql.structure': structureStage,
    'ucs-sql.train-question': questionStage,
    'ucs-sql.train-content': contentStage,
    'ucs-sql.train-structure': structureStage,
    'ucs-sql.shot-candidates': shotCandidatesStage,
    'ucs-sql.select-shots': selectShotsStage,
    'ucs-sql.skeleton': skeletonStage,
    'ucs-sql.generate': generateStage,
  },
};
