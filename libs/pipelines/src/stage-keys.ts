import { contentHash, type StageRole, type VariantSpec } from '@sqlsweep/contracts';
import { variantScalars, type PipelineDefinition, type StageNode } from './pipeline';
import { faultOfStage, TEST_FAULT_PARAM, type StageFaults } from './test-faults';
import { TRAIN_SET_ITEM, trainSetName, trainSetOf, trainSetOutput, trainSetStages } from './train-sets';

export interface KeyedStage {
  stage: string;
  /**
   * The item this instance computes: the evaluated item, a training item for train-items stages, or TRAIN_SET_ITEM
   * for training-set stages (train-sets.ts).
   */
  itemId: string;
  role: StageRole;
  key: string;
  params: Record<string, string | number | boolean>;
  /** input name -> stage key, as the plan lists them: a training set read as `input` is one entry, `input[*]`. */
  inputs: Record<string, string>;
  final: boolean;
}

export interface KeyingContext {
  datasetVersion: string;
  cacheNamespace?: string;
  trainItemIds?: readonly string[];
  /** SHA-256 of each file the variant's stages read through a file knob, by derived parameter (`fileKnobsRead`). */
  fileHashes?: Readonly<Record<string, string>>;
  /**
   * Test-only fault switches of the planning process (`test-faults.ts`): a stage they break gets the fault among its
   * parameters, so its key differs as a new version of its code would, and its job tells the worker what was planned.
   */
  faults?: StageFaults;
}

/**
 * Keys the stages of one variant by content: stage name and version, template hash, the parameters it reads, the
 * keys of its inputs, the dataset version and the item. Equal keys mean equal outputs, so any two variants, sweeps
 * or nights that share a stage share its result. The graph, its train-items stages and the training sets read from
 * them (the same for every evaluated item) are keyed once, when the keyer is made. A stage reading a training set
 * reads it through the set's key, which hashes every member's (train-sets.ts).
 */
export class VariantKeyer {
  private readonly graph: StageNode[];
  private readonly scalars: Record<string, string | number | boolean>;
  /** Train-items stages: node -> its instances; and stage -> train item id -> key, for `stage[*]` inputs. */
  private readonly trainStages = new Map<StageNode, KeyedStage[]>();
  private readonly trainKeys = new Map<string, Map<string, string>>();
  /** Training-set stages by the train-items stage they gather (`X` of an `X[*]` input). */
  private readonly trainSets = new Map<string, KeyedStage>();
  /** Stage -> the parameters its key depends on: its own and, through its inputs, those of every stage upstream. */
  private readonly upstreamParams = new Map<string, Record<string, string | number | boolean>>();

  constructor(private readonly pipeline: PipelineDefinition, variant: VariantSpec, private readonly ctx: KeyingContext) {
    this.graph = pipeline.graph(variant);
    this.scalars = { ...variantScalars(variant, ctx.cacheNamespace), ...ctx.fileHashes };
    for (const node of this.graph) {
      const fromInputs = Object.values(node.inputs).map((ref) => this.upstreamParams.get(ref.replace(/\[\*\]$/, '')) ?? {});
      this.upstreamParams.set(node.stage, Object.assign({}, ...fromInputs, this.paramsOf(node)));
    }
    for (const node of this.graph) {
      if (node.scope !== 'train-items') continue;
      const perItem = new Map<string, string>();
      const instances = (ctx.trainItemIds ?? []).map((trainId) => {
        const own = new Map([...this.trainKeys].flatMap(([stage, m]) => (m.has(trainId) ? [[stage, m.get(trainId)!] as const] : [])));
        const keyed = this.keyOne(node, trainId, own);
        perItem.set(trainId, keyed.key);
        return keyed;
      });
      this.trainStages.set(node, instances);
      this.trainKeys.set(node.stage, perItem);
    }
    // No training items: no set either, and its readers list nothing for it (an empty map).
    if (ctx.trainItemIds?.length) {
      for (const source of trainSetStages(this.graph).map((set) => trainSetOf(set)!)) this.trainSets.set(source, this.keyTrainSet(source));
    }
  }

  /**
   * The train-items stage instances, one per (train-items stage, training item), then the training sets gathering
   * them, one per train-items stage some stage reads as a whole: all shared by every evaluated item.
   */
  trainItemStages(): KeyedStage[] {
    return [...[...this.trainStages.values()].flat(), ...this.trainSets.values()];
  }

  /**
   * What a stage may know before the run (its estimate, whether it certainly skips its call): every parameter its
   * key depends on, its inputs' too, although at run time it gets only its own. Variants that share the stage's
   * key agree on all of them.
   */
  planTimeParams(stage: string): Readonly<Record<string, string | number | boolean>> {
    const params = this.upstreamParams.get(stage);
    if (!params) throw new Error(`stage ${stage} is not in the graph of this variant`);
    return params;
  }

  /** The stages of one evaluated item's graph, in graph order, train-items instances left out. */
  itemStages(itemId: string): KeyedStage[] {
    const itemKeys = new Map<string, string>();
    const out: KeyedStage[] = [];
    for (const node of this.graph) {
      if (node.scope === 'train-items') continue;
      const keyed = this.keyOne(node, itemId, itemKeys);
      itemKeys.set(node.stage, keyed.key);
      out.push(keyed);
    }
    return out;
  }

  private paramsOf(node: StageNode): Record<string, string | number | boolean> {
    return Object.fromEntries(node.reads.map((name) => {
      if (!(name in this.scalars)) {
        const file = this.pipeline.fileKnobs?.find((f) => f.sha256Param === name);
        throw new Error(`stage ${node.stage} reads unknown parameter "${name}"${file ? ` (the SHA-256 of the file knob ${file.knob}: give it in fileHashes)` : ''}`);
      }
      return [name, this.scalars[name]];
    }));
  }

  /** The training set of train-items stage `source`: its members are the source's instances. */
  private keyTrainSet(source: string): KeyedStage {
    const stage = trainSetName(source);
    const perItem = this.trainKeys.get(source);
    if (!perItem) {
      const reader = this.graph.find((node) => Object.values(node.inputs).includes(stage))!;
      throw new Error(`stage ${reader.stage} reads ${stage}, but ${source} is not an earlier train-items stage`);
    }
    const inputs = Object.fromEntries(perItem);
    const key = contentHash({ stage, output: trainSetOutput(inputs), dataset: this.ctx.datasetVersion });
    return { stage, itemId: TRAIN_SET_ITEM, role: 'retrieval', key, params: {}, inputs, final: false };
  }

  private keyOne(node: StageNode, itemId: string, own: Map<string, string>): KeyedStage {
    const fault = faultOfStage(node.stage, this.ctx.faults);
    const params = { ...this.paramsOf(node), ...(fault === undefined ? {} : { [TEST_FAULT_PARAM]: fault }) };
    const inputs: Record<string, string> = {};
    for (const [as, ref] of Object.entries(node.inputs)) {
      const source = trainSetOf(ref);
      if (source !== undefined) {
        if (!this.trainKeys.has(source)) throw new Error(`stage ${node.stage} reads ${ref}, but ${source} is not an earlier train-items stage`);
        const set = this.trainSets.get(source);
        if (set) inputs[trainSetName(as)] = set.key;
      } else {
        const key = own.get(ref);
        if (!key) throw new Error(`stage ${node.stage} reads ${ref}, which is not earlier in the graph (in its scope)`);
        inputs[as] = key;
      }
    }
    const key = contentHash({
      stage: node.stage, version: node.version, template: node.template?.hash ?? null, params, inputs,
      dataset: this.ctx.datasetVersion, item: itemId,
    });
    return { stage: node.stage, itemId, role: node.role, key, params, inputs, final: node.final ?? false };
  }
}

/** Every keyed stage one (variant, item) needs, train-items instances included; VariantKeyer keys many items faster. */
export function keyItemStages(pipeline: PipelineDefinition, variant: VariantSpec, ctx: KeyingContext & { itemId: string }): KeyedStage[] {
  const keyer = new VariantKeyer(pipeline, variant, ctx);
  return [...keyer.trainItemStages(), ...keyer.itemStages(ctx.itemId)];
}
