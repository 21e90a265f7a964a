import type { MethodModule } from '../../method';
import { drChainPipeline } from './graph';
import {
  finalStage, generateStage, retrieveStage, revisionStages, simplifyStage, skeletonsStage, trainSimplifyStage, trainSkeletonsStage,
} from './stages';

export const drChainMethod: MethodModule = {
  pipelines: { 'dr-chain': drChainPipeline },
  stages: [trainSimplifyStage, trainSkeletonsStage, simplifyStage, skeletonsStage, retrieveStage, generateStage, ...revisionStages, finalStage],
};

export { drChainPipeline } from './graph';
export {
  explainStage, feedbackStage, finalStage, generateStage, retrieveStage, reviseStage, simplifyStage, skeletonsStage,
  trainSimplifyStage, trainSkeletonsStage,
} from './stages';
export { questionSkeleton, schemaVocabulary } from '../../similarity';
export { questionValues, relatedContents } from './related-contents';
export { parseSimplifiedQuestion, parseExplanation } from './parse';
