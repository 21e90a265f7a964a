import type { AnyStage } from './define-stage';
import type { PipelineDefinition } from './pipeline';

/** What a method contributes: its pipelines (by the name sweep configs use) and the definitions of its stages. */
export interface MethodModule {
  pipelines: Record<string, PipelineDefinition>;
  /** Every stage definition its pipelines' graphs use (the registry runs a stage by its name). */
  stages: readonly AnyStage[];
}
