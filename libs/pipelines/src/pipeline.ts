import type { StageRole, VariantSpec } from '@sqlsweep/contracts';
import type { PromptTemplate } from './template';

/** One node of an item's stage graph. */
export interface StageNode {
  /** Globally unique stage name, e.g. `gold`, `zero-shot.generate`, `evaluate`. */
  stage: string;
  role: StageRole;
  /** Bump when the stage's code changes meaning: it is part of the key. */
  version: number;
  /** Variant parameters the stage reads (and only those enter its key). */
  reads: string[];
  /** Stage names whose outputs this stage reads, by the name it knows them under. */
  inputs: Record<string, string>;
  template?: PromptTemplate;
  final?: boolean;
}

export interface PipelineDefinition {
  name: string;
  /** The stage graph of one item for one variant, in topological order. */
  graph(variant: VariantSpec): StageNode[];
}

/** Scalar parameters a stage may read: the variant's grid values plus its model and sample index. */
export function variantScalars(variant: VariantSpec): Record<string, string | number | boolean> {
  return { ...variant.params, model: variant.model, sampleIndex: variant.sampleIndex };
}
