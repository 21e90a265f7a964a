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
  /**
   * Stage names whose outputs this stage reads, by the name it knows them under. `other[*]` reads the stage
   * `other` of every training item (which must have scope 'train-items').
   */
  inputs: Record<string, string>;
  /**
   * 'item' (default): one instance per evaluated item. 'train-items': one instance per training item of the
   * dataset version, keyed by that item, so precomputation over the train split is memoized and shared by every
   * variant and run that needs it. Such a stage may only read other train-items stages (by plain name).
   */
  scope?: 'item' | 'train-items';
  template?: PromptTemplate;
  final?: boolean;
}

export interface PipelineDefinition {
  name: string;
  /** The stage graph of one item for one variant, in topological order. */
  graph(variant: VariantSpec): StageNode[];
}

/**
 * Scalar parameters a stage may read: the variant's grid values, its model and sample index, and the sweep's cache
 * namespace (LLM stages read it, so a new namespace means fresh LLM calls while everything else is reused).
 */
export function variantScalars(variant: VariantSpec, cacheNamespace = ''): Record<string, string | number | boolean> {
  return { ...variant.params, model: variant.model, sampleIndex: variant.sampleIndex, cacheNamespace };
}
