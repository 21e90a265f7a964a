import type { MethodModule } from '../../method';
import type { StageImplementation } from '../../stage-context';
import { DR_CHAIN_MAX_REVISIONS, drChainPipeline, stageNames } from './graph';
import { explainStage, feedbackStage, finalStage, generateStage, retrieveStage, reviseStage, simplifyStage, skeletonsStage, trainSkeletonsStage } from './stages';

const chain: Record<string, StageImplementation> = {};
for (let i = 1; i <= DR_CHAIN_MAX_REVISIONS; i++) {
  chain[stageNames.feedback(i)] = feedbackStage(i);
  chain[stageNames.explain(i)] = explainStage;
  chain[stageNames.revise(i)] = reviseStage;
}

export const drChainMethod: MethodModule = {
  pipelines: { 'dr-chain': drChainPipeline },
  stages: {
    [stageNames.trainSimplify]: simplifyStage,
    [stageNames.trainSkeletons]: trainSkeletonsStage,
    [stageNames.simplify]: simplifyStage,
    [stageNames.skeletons]: skeletonsStage,
    [stageNames.retrieve]: retrieveStage,
    [stageNames.generate]: generateStage,
    ...chain,
    [stageNames.final]: finalStage,
  },
};

export { drChainGraph, drChainPipeline, stageNames as drChainStageNames } from './graph';
export { questionSkeleton, schemaVocabulary } from '../../similarity';
export { questionValues, relatedContents } from './related-contents';
export { parseSimplifiedQuestion, parseExplanation } from './parse';
