import type { PipelineName } from '@sqlsweep/contracts';
import type { PipelineDefinition } from './pipeline';
import type { StageImplementation } from './stage-context';
import { evaluateStage, goldStage } from './stages/common';
import { zeroShotGenerate, zeroShotPipeline } from './stages/zero-shot';

export const pipelines: Record<PipelineName, PipelineDefinition> = {
  'zero-shot': zeroShotPipeline,
};

/** Every stage name the system knows, with the code that computes it. */
export const stageImplementations: Record<string, StageImplementation> = {
  gold: goldStage,
  evaluate: evaluateStage,
  'zero-shot.generate': zeroShotGenerate,
};
