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

/**
 * A knob whose value is the path of a file a stage reads (R3's RAG corpus). A path says nothing about what the file
 * holds, so the planner hashes the file into a derived parameter, `sha256Param`, which the reading stage lists in
 * `reads`: editing the file changes the stage's key (and its dependents') as editing a template does. The stage
 * reads the file with `readKeyedFile` (file-knobs.ts), which refuses content other than the planned one.
 */
export interface FileKnob {
  /** The grid knob holding the path. */
  knob: string;
  /** The derived parameter holding the SHA-256 of the file's bytes, as the planner found them. */
  sha256Param: string;
  /** What the file is, for messages: "the RAG corpus". */
  description: string;
}

/**
 * What one variant needs of the dataset version it runs on, named by the knob that makes the need. The planner and
 * `--dry-run` refuse a sweep whose dataset falls short, instead of letting every job of the variant fail at run time.
 */
export interface DatasetNeed {
  /** The grid knob whose value makes the need, e.g. `shots`. */
  knob: string;
  /** The knob's value in this variant, for the message. */
  value: string | number | boolean;
  /** The fewest items the dataset version's train split must hold. */
  trainItems: number;
}

export interface PipelineDefinition {
  name: string;
  /** The stage graph of one item for one variant, in topological order. */
  graph(variant: VariantSpec): StageNode[];
  /** What the variant needs of the dataset (none when left out). */
  datasetNeeds?(variant: VariantSpec): DatasetNeed[];
  /** Knobs that name a file a stage reads; the stage reads the file's hash too, so its content enters the key. */
  fileKnobs?: FileKnob[];
}

/**
 * Scalar parameters a stage may read: the variant's grid values, its model and sample index, and the sweep's cache
 * namespace (LLM stages read it, so a new namespace means fresh LLM calls while everything else is reused).
 */
export function variantScalars(variant: VariantSpec, cacheNamespace = ''): Record<string, string | number | boolean> {
  return { ...variant.params, model: variant.model, sampleIndex: variant.sampleIndex, cacheNamespace };
}
