import { contentHash, type StageRole, type VariantSpec } from '@sqlsweep/contracts';
import { variantScalars, type PipelineDefinition, type StageNode } from './pipeline';

export interface KeyedStage {
  stage: string;
  /** The item this instance computes: the evaluated item, or a training item for train-items stages. */
  itemId: string;
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
  ctx: { datasetVersion: string; itemId: string; cacheNamespace?: string; trainItemIds?: readonly string[] },
): KeyedStage[] {
  const scalars = variantScalars(variant, ctx.cacheNamespace);
  const itemKeys = new Map<string, string>();
  const trainKeys = new Map<string, Map<string, string>>(); // stage -> train item id -> key
  const out: KeyedStage[] = [];

  const keyOne = (node: StageNode, itemId: string, own: Map<string, string>): KeyedStage => {
    const params = Object.fromEntries(node.reads.map((name) => {
      if (!(name in scalars)) throw new Error(`stage ${node.stage} reads unknown parameter "${name}"`);
      return [name, scalars[name]];
    }));
    const inputs: Record<string, string> = {};
    for (const [as, ref] of Object.entries(node.inputs)) {
      const all = /^(.+)\[\*\]$/.exec(ref);
      if (all) {
        const perItem = trainKeys.get(all[1]);
        if (!perItem) throw new Error(`stage ${node.stage} reads ${ref}, but ${all[1]} is not an earlier train-items stage`);
        for (const [trainId, key] of perItem) inputs[`${as}/${trainId}`] = key;
      } else {
        const key = own.get(ref);
        if (!key) throw new Error(`stage ${node.stage} reads ${ref}, which is not earlier in the graph (in its scope)`);
        inputs[as] = key;
      }
    }
    const key = contentHash({
      stage: node.stage, version: node.version, template: node.template?.hash ?? null, params, inputs,
      dataset: ctx.datasetVersion, item: itemId,
    });
    return { stage: node.stage, itemId, role: node.role, key, params, inputs, final: node.final ?? false };
  };

  for (const node of pipeline.graph(variant)) {
    if (node.scope === 'train-items') {
      const perItem = new Map<string, string>();
      for (const trainId of ctx.trainItemIds ?? []) {
        const own = new Map([...trainKeys].flatMap(([stage, m]) => (m.has(trainId) ? [[stage, m.get(trainId)!] as const] : [])));
        const keyed = keyOne(node, trainId, own);
        perItem.set(trainId, keyed.key);
        out.push(keyed);
      }
      trainKeys.set(node.stage, perItem);
    } else {
      const keyed = keyOne(node, ctx.itemId, itemKeys);
      itemKeys.set(node.stage, keyed.key);
      out.push(keyed);
    }
  }
  return out;
}
