import { DR_CHAIN_MAX_REVISIONS } from '@sqlsweep/contracts';
import { definePipeline } from '../../define-pipeline';
import type { Producing } from '../../define-stage';
import { evaluateStage, goldStage } from '../../stages/common';
import {
  explainStage, feedbackStage, finalStage, generateStage, retrieveStage, reviseStage, simplifyStage, skeletonsStage,
  trainSimplifyStage, trainSkeletonsStage, type RevisionState,
} from './stages';

/**
 * DR-Chain's stage graph. Offline (per training item, shared by every variant with the same model): simplify, then
 * the skeletons of both questions. Online: simplify, skeletons, retrieve k1 + k2, generate, then the revision chain
 * unrolled to N_max steps of (feedback: execute + related contents + stop test, explain, revise); a step after the
 * chain stopped passes its input through.
 */
export const drChainPipeline = definePipeline('dr-chain', {
  graph: (g, { params: p }) => {
    const steps = p.revision ? p.maxRevisions : 0;
    if (!Number.isInteger(steps) || steps < 0 || steps > DR_CHAIN_MAX_REVISIONS) throw new Error(`dr-chain: maxRevisions must be an integer from 1 to ${DR_CHAIN_MAX_REVISIONS}, got ${String(p.maxRevisions)}`);
    g.add(goldStage);
    g.add(trainSkeletonsStage, { simplified: p.simplification ? g.add(trainSimplifyStage) : undefined });
    g.add(skeletonsStage, { simplified: p.simplification ? g.add(simplifyStage) : undefined });
    g.add(retrieveStage);
    const generated = g.add(generateStage);
    let previous: Producing<RevisionState> = generated;
    for (let i = 1; i <= steps; i++) {
      g.add(feedbackStage(i), { current: previous, earlier: i > 1 ? feedbackStage(i - 1) : undefined });
      g.add(explainStage(i));
      previous = g.add(reviseStage(i));
    }
    g.add(evaluateStage, { prediction: g.add(finalStage, { last: previous }) });
  },
  // The skeleton retrieval repository is the train split: empty, k1 and k2 retrieve nothing.
  datasetNeeds: ({ params: p }) => {
    const knob = p.k1 > 0 ? 'k1' : p.k2 > 0 ? 'k2' : null;
    return knob ? [{ knob, value: p[knob], trainItems: 1 }] : [];
  },
});
