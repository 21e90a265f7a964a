import type { AnyStage } from './define-stage';
import type { PipelineDefinition } from './pipeline';
import type { StageImplementation } from './stage-context';

/** What a method contributes: its pipelines (by the name sweep configs use) and the definitions of its stages. */
export interface MethodModule {
  pipelines: Record<string, PipelineDefinition>;
  /** TRANSITIONAL: a record of implementations is the old form, removed when every method uses defineStage. */
  stages: readonly AnyStage[] | Record<string, StageImplementation>;
}
