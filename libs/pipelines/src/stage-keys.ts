import { contentHash, type StageRole, type VariantSpec } from '@sqlsweep/contracts';
import { variantScalars, type PipelineDefinition } from './pipeline';

export interface KeyedStage {
  stage: string;
  role: StageRole;
  key: string;
  params: Record<string, string | number | boolean>;
  /** input name -> stage key */
  inputs: Record<string, string>;
  final: boolean;
}

/**
 * Keys every stage of one (variant, item) by content: stage name and version, template hash, the parameters it
 * reads, the keys of its inputs, the dataset version and the item. Equal keys mean equal outputs, so any two
 * variants, sweeps or nights that share a stage share its result.
 */
export function keyItemStages(
  pipeline: PipelineDefinition,
  variant: VariantSpec,
  ctx: { datasetVersion: string; itemId: string },
): KeyedStage[] {
  const scalars = variantScalars(variant);
  const keys = new Map<string, string>();
  return pipeline.graph(variant).map((node) => {
    const params = Object.fromEntries(node.reads.map((name) => {
      if (!(name in scalars)) throw new Error(`stage ${node.stage} reads unknown parameter "${name}"`);
      return [name, scalars[name]];
    }));
    const inputs = Object.fromEntries(Object.entries(node.inputs).map(([as, stage]) => {
      const key = keys.get(stage);
      if (!key) throw new Error(`stage ${node.stage} reads ${stage}, which is not earlier in the graph`);
      return [as, key];
    }));
    const key = contentHash({
      stage: node.stage, version: node.version, template: node.template?.hash ?? null, params, inputs,
      dataset: ctx.datasetVersion, item: ctx.itemId,
    });
    keys.set(node.stage, key);
    return { stage: node.stage, role: node.role, key, params, inputs, final: node.final ?? false };
  });
}
