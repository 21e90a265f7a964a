import { randomUUID } from 'node:crypto';
import { contentHash, expandVariants, SweepConfigError, type ResolvedVariantSpec, type SweepConfig } from '@sqlsweep/contracts';
import type { DatasetRepository, DatasetVersion, PlannedStage, ResolvedKnobRecord, RunRepository, StageRepository, StoredItem } from '@sqlsweep/db';
import { isLlmError } from '@sqlsweep/llm';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import { pipelines, stageImplementations, VariantKeyer, type KeyedStage, type LlmCall, type StageFaults } from '@sqlsweep/pipelines';
import { admitStageJobs, admitVariants, defaultAdmissionBudget, type AdmissionBudget } from './admission';
import { checkDatasetNeeds } from './dataset-needs';
import { FileKnobHasher } from './file-knob-hashes';
import { OperatingPointResolver, type OperatingPointDeps } from './operating-points/resolver';

export interface CostEstimate { llmCalls: number; inputTokens: number; outputTokens: number; costUsd: number }
export interface StageKindPlan extends CostEstimate { stage: string; role: string; needed: number; reused: number }

export interface SweepPlan {
  config: SweepConfig;
  source: string;
  version: DatasetVersion;
  items: StoredItem[];
  /** Operating points already resolved: params hold numbers only, `resolvedKnobs` says what each stands for. */
  variants: Array<ResolvedVariantSpec & { id: string; resolvedKnobs: ResolvedKnobRecord[] }>;
  stages: PlannedStage[];
  /** Per stage kind: distinct stage jobs still to run, and distinct stages whose stored result is reused. */
  byStage: StageKindPlan[];
  stageJobs: number;
  reused: number;
  /**
   * LLM calls the stage jobs still needed make at most: a stage certain to skip its call (`LlmStage.skipsFor`)
   * counts none; one whose skip depends on its inputs (a chain step) counts one.
   */
  llmCalls: number;
  /** Tokens and dollars of those LLM calls, from each stage's prompt as far as it can be known now. */
  estimate: CostEstimate;
  simulated: boolean;
}

export interface PlannerDeps {
  datasets: DatasetRepository;
  runs: RunRepository;
  stages: StageRepository;
  /** Throws for an unknown model or a missing key, before anything is written. */
  assertModelsUsable(models: string[]): void;
  isSimulated(model: string): boolean;
  estimateCall(call: LlmCall): { inputTokens: number; outputTokens: number; costUsd: number };
  /** The largest sweep planned; default `defaultAdmissionBudget`. */
  budget?: AdmissionBudget;
  /** The folder file knobs may name files in (`FileKnobHasher`); default this process's. */
  corpusDir?: string;
  /** What resolves threshold operating points (`theta: { recall: 0.9 }`); without it a sweep that gives one is refused. */
  operatingPoints?: Omit<OperatingPointDeps, 'datasets'>;
  /** Test-only fault switches (`StageFaults`): the stages they break are keyed apart. Never set in production. */
  faults?: StageFaults;
}

/**
 * Grid -> variants -> per-item stage graphs -> content-hashed keys, minus what is already stored. A sweep is
 * admitted first: its variant and stage-job counts are computed from the grid and item counts and checked against
 * the budget, and the dataset against what the variants need, before anything is expanded per item.
 */
export class Planner {
  constructor(private readonly deps: PlannerDeps) {}

  async plan(config: SweepConfig, source: string): Promise<SweepPlan> {
    try {
      this.deps.assertModelsUsable(config.models);
    } catch (e) {
      if (isLlmError(e)) throw new SweepConfigError(source, 'models', e.message);
      throw e;
    }
    const budget = this.deps.budget ?? defaultAdmissionBudget;
    admitVariants(config, source, budget);
    const version = await this.deps.datasets.findVersion(config.dataset, config.datasetVersion);
    if (!version) {
      throw new SweepConfigError(source, config.datasetVersion ? 'datasetVersion' : 'dataset',
        `no registered dataset "${config.dataset}"${config.datasetVersion ? ` with a version starting ${config.datasetVersion}` : ''}` +
        ` (register it with: sqlsweep datasets add ${config.dataset} --format bird|spider|minibench --path DIR)`);
    }
    const items = await this.deps.datasets.listItems(version.id, { split: config.split, ...config.items });
    if (items.length === 0) throw new SweepConfigError(source, 'items', `selects no ${config.split} items of dataset "${config.dataset}"`);
    const trainItems = await this.deps.datasets.listItems(version.id, { split: 'train' });
    checkDatasetNeeds(config, source, { name: config.dataset, version: version.contentHash, trainItems: trainItems.length });
    admitStageJobs(config, source, { items: items.length, trainItems: trainItems.length }, budget);

    const variants = await this.resolveOperatingPoints(config, source, version);
    const trainItemIds = trainItems.map((i) => i.itemId);
    const stages: PlannedStage[] = [];
    const kindOf = new Map<string, { stage: string; role: string; keys: Set<string> }>();
    const place = (variantId: string, s: KeyedStage) => {
      stages.push({ variantId, itemId: s.itemId, stage: s.stage, stageKey: s.key, role: s.role, params: s.params, inputs: s.inputs, isFinal: s.final });
      const kind = kindOf.get(s.stage) ?? { stage: s.stage, role: s.role, keys: new Set<string>() };
      kind.keys.add(s.key);
      kindOf.set(s.stage, kind);
    };
    const files = new FileKnobHasher(config, source, this.deps.corpusDir);
    const keyers = new Map<string, VariantKeyer>();
    for (const variant of variants) {
      const fileHashes = await files.hashesFor(variant);
      const keyer = new VariantKeyer(pipelines[variant.pipeline], variant, { datasetVersion: version.contentHash, cacheNamespace: config.cacheNamespace, trainItemIds, fileHashes, faults: this.deps.faults });
      keyers.set(variant.id, keyer);
      for (const s of keyer.trainItemStages()) place(variant.id, s);
      for (const item of items) for (const s of keyer.itemStages(item.itemId)) place(variant.id, s);
    }
    const allKeys = [...new Set(stages.map((s) => s.stageKey))];
    const stored = await this.deps.stages.existingKeys(allKeys);
    const estimates = await this.estimateNeeded(version.id, [...items, ...trainItems], stages.filter((s) => !stored.has(s.stageKey)), keyers);
    const byStage = [...kindOf.values()].map(({ stage, role, keys }) => {
      const reused = [...keys].filter((k) => stored.has(k)).length;
      return { stage, role, needed: keys.size - reused, reused, ...(estimates.get(stage) ?? zeroEstimate()) };
    });
    const estimate = byStage.reduce((t, s) => addEstimate(t, s), zeroEstimate());
    return {
      config, source, version, items, variants, stages, byStage,
      stageJobs: allKeys.length - stored.size,
      reused: stored.size,
      llmCalls: estimate.llmCalls,
      estimate,
      simulated: config.models.some((m) => this.deps.isSimulated(m)),
    };
  }

  /**
   * Expands the grid and replaces each operating point by the threshold it stands for on this dataset version and
   * encoder, before anything is keyed: stage keys hold the number, as if the config had given it.
   */
  private async resolveOperatingPoints(config: SweepConfig, source: string, version: DatasetVersion): Promise<SweepPlan['variants']> {
    const expanded = expandVariants(config);
    const needing = expanded.filter(OperatingPointResolver.needsResolving);
    let resolver: OperatingPointResolver | undefined;
    if (needing.length > 0) {
      if (!this.deps.operatingPoints) throw new SweepConfigError(source, 'pipelines', 'gives a threshold as an operating point, but this planner has no encoder to resolve it with (a raw threshold works)');
      resolver = new OperatingPointResolver({ ...this.deps.operatingPoints, datasets: this.deps.datasets });
    }
    const variants: SweepPlan['variants'] = [];
    const byKey = new Map<string, string>();
    for (const v of expanded) {
      let resolved: { variant: ResolvedVariantSpec; resolvedKnobs: ResolvedKnobRecord[] };
      try {
        resolved = resolver && OperatingPointResolver.needsResolving(v) ? await resolver.resolve(version, v) : { variant: v as ResolvedVariantSpec, resolvedKnobs: [] };
      } catch (e) {
        throw new SweepConfigError(source, 'pipelines', (e as Error).message);
      }
      const twin = byKey.get(resolved.variant.key);
      if (twin) throw new SweepConfigError(source, 'pipelines', `variants "${twin}" and "${resolved.variant.label}" are the same once their operating points are resolved`);
      byKey.set(resolved.variant.key, resolved.variant.label);
      variants.push({ ...resolved.variant, id: randomUUID(), resolvedKnobs: resolved.resolvedKnobs });
    }
    return variants;
  }

  /**
   * Renders the estimate prompt of every distinct LLM stage still needed and prices it with the model catalog; a
   * stage certain to skip its call (`skipsFor`) counts neither a call nor tokens.
   */
  private async estimateNeeded(versionId: number, items: StoredItem[], needed: PlannedStage[], keyers: Map<string, VariantKeyer>): Promise<Map<string, CostEstimate>> {
    const byStage = new Map<string, CostEstimate>();
    const itemById = new Map(items.map((i) => [i.itemId, i]));
    const schemas = new Map<string, DatabaseSchema>();
    const seen = new Set<string>();
    for (const s of needed) {
      const impl = stageImplementations[s.stage];
      if (s.role !== 'llm' || impl?.kind !== 'llm' || seen.has(s.stageKey)) continue;
      seen.add(s.stageKey);
      const e = byStage.get(s.stage) ?? zeroEstimate();
      byStage.set(s.stage, e);
      const item = itemById.get(s.itemId)!;
      let schema = schemas.get(item.dbId);
      if (!schema) {
        schema = (await this.deps.datasets.getDatabase(versionId, item.dbId))?.schema as DatabaseSchema;
        schemas.set(item.dbId, schema);
      }
      const ctx = { item, schema, params: { ...keyers.get(s.variantId)!.planTimeParams(s.stage) } };
      if (impl.skipsFor?.(ctx)) continue;
      e.llmCalls += 1;
      if (!impl.estimate) continue;
      const call = impl.estimate(ctx);
      const cost = this.deps.estimateCall(call);
      e.inputTokens += cost.inputTokens;
      e.outputTokens += cost.outputTokens;
      e.costUsd += cost.costUsd;
    }
    return byStage;
  }

  /** Stores the plan as a new run (one transaction) and returns its id. */
  async createRun(plan: SweepPlan): Promise<string> {
    return this.deps.runs.createRun({
      sweep: { name: plan.config.name, source: plan.source, config: plan.config, configHash: contentHash(plan.config) },
      datasetVersionId: plan.version.id,
      priority: plan.config.priority,
      itemCount: plan.items.length,
      stageJobs: plan.stageJobs,
      reusedStages: plan.reused,
      simulated: plan.simulated,
      cacheNamespace: plan.config.cacheNamespace,
      llmMode: plan.config.llmMode,
      estimate: plan.estimate,
      variants: plan.variants.map((v) => ({ id: v.id, variantKey: v.key, label: v.label, pipeline: v.pipeline, model: v.model, sampleIndex: v.sampleIndex, params: v.params, resolvedKnobs: v.resolvedKnobs })),
      stages: plan.stages,
    });
  }
}

function zeroEstimate(): CostEstimate {
  return { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
}

function addEstimate(a: CostEstimate, b: CostEstimate): CostEstimate {
  return { llmCalls: a.llmCalls + b.llmCalls, inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}
