import type { VariantSpec } from '@sqlsweep/contracts';
import type { PipelineDefinition, StageNode } from '../../pipeline';
import { templates } from './templates';
import { evaluateNode } from '../../stages/common';

/** Revision steps with registered stages; the grid caps maxRevisions at this. */
export const DR_CHAIN_MAX_REVISIONS = 8;

const LLM = ['model', 'sampleIndex', 'cacheNamespace'];

export const stageNames = {
  trainSimplify: 'dr-chain.train-simplify',
  trainSkeletons: 'dr-chain.train-skeletons',
  simplify: 'dr-chain.simplify',
  skeletons: 'dr-chain.skeletons',
  retrieve: 'dr-chain.retrieve',
  generate: 'dr-chain.generate',
  feedback: (i: number) => `dr-chain.feedback.${i}`,
  explain: (i: number) => `dr-chain.explain.${i}`,
  revise: (i: number) => `dr-chain.revise.${i}`,
  final: 'dr-chain.final',
};

/**
 * DR-Chain's stage graph. Offline (per training item, shared by every variant with the same model): simplify, then
 * the skeletons of both questions. Online: simplify, skeletons, retrieve k1 + k2, generate, then the revision chain
 * unrolled to N_max steps of (feedback: execute + related contents + stop test, explain, revise); a step after the
 * chain stopped passes its input through.
 */
export function drChainGraph(variant: VariantSpec): StageNode[] {
  const p = variant.params;
  const simplification = p.simplification !== false;
  const revision = p.revision !== false;
  const steps = revision ? Number(p.maxRevisions) : 0;
  if (!Number.isInteger(steps) || steps < 0 || steps > DR_CHAIN_MAX_REVISIONS) throw new Error(`dr-chain: maxRevisions must be an integer from 1 to ${DR_CHAIN_MAX_REVISIONS}, got ${String(p.maxRevisions)}`);
  const nodes: StageNode[] = [{ stage: 'gold', role: 'sql', version: 1, reads: [], inputs: {} }];
  if (simplification) {
    nodes.push({ stage: stageNames.trainSimplify, role: 'llm', version: 1, reads: [...LLM, 'simplifyTemperature'], inputs: {}, scope: 'train-items', template: templates.simplify });
  }
  nodes.push(
    { stage: stageNames.trainSkeletons, role: 'retrieval', version: 1, reads: [], inputs: simplification ? { simplified: stageNames.trainSimplify } : {}, scope: 'train-items' },
  );
  if (simplification) nodes.push({ stage: stageNames.simplify, role: 'llm', version: 1, reads: [...LLM, 'simplifyTemperature'], inputs: {}, template: templates.simplify });
  nodes.push(
    { stage: stageNames.skeletons, role: 'retrieval', version: 1, reads: [], inputs: simplification ? { simplified: stageNames.simplify } : {} },
    { stage: stageNames.retrieve, role: 'retrieval', version: 2, reads: ['k1', 'k2'], inputs: { skeletons: stageNames.skeletons, repository: `${stageNames.trainSkeletons}[*]` } },
    { stage: stageNames.generate, role: 'llm', version: 1, reads: [...LLM, 'temperature', 'maxTokens'], inputs: { retrieve: stageNames.retrieve }, template: templates.generate },
  );
  let previous = stageNames.generate;
  for (let i = 1; i <= steps; i++) {
    nodes.push(
      { stage: stageNames.feedback(i), role: 'sql', version: 1, reads: ['contentValues'], inputs: { current: previous, ...(i > 1 ? { earlier: stageNames.feedback(i - 1) } : {}) } },
      { stage: stageNames.explain(i), role: 'llm', version: 1, reads: [...LLM, 'temperature', 'maxTokens'], inputs: { feedback: stageNames.feedback(i) }, template: templates.explain },
      { stage: stageNames.revise(i), role: 'llm', version: 1, reads: [...LLM, 'temperature', 'maxTokens'], inputs: { feedback: stageNames.feedback(i), explanation: stageNames.explain(i), retrieve: stageNames.retrieve }, template: templates.revise },
    );
    previous = stageNames.revise(i);
  }
  nodes.push(
    { stage: stageNames.final, role: 'sql', version: 1, reads: [], inputs: { initial: stageNames.generate, last: previous } },
    evaluateNode(stageNames.final),
  );
  return nodes;
}

export const drChainPipeline: PipelineDefinition = {
  name: 'dr-chain',
  graph: drChainGraph,
  // The skeleton retrieval repository is the train split: empty, k1 and k2 retrieve nothing.
  datasetNeeds: (v) => {
    const knob = Number(v.params.k1) > 0 ? 'k1' : Number(v.params.k2) > 0 ? 'k2' : null;
    return knob ? [{ knob, value: v.params[knob], trainItems: 1 }] : [];
  },
};
