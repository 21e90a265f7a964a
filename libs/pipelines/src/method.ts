import type { PipelineDefinition } from './pipeline';
import type { StageImplementation } from './stage-context';

/** What a method contributes: its pipelines (by the name sweep configs use) and the code of its stages. */
export interface MethodModule {
  pipelines: Record<string, PipelineDefinition>;
  stages: Record<string, StageImplementation>;
}
