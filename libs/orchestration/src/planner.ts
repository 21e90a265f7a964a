import { randomUUID } from 'node:crypto';
import { contentHash, expandVariants, SweepConfigError, type SweepConfig, type VariantSpec } from '@sqlsweep/contracts';
import type { DatasetRepository, DatasetVersion, PlannedStage, RunRepository, StageRepository, StoredItem } from '@sqlsweep/db';
import { isLlmError } from '@sqlsweep/llm';
import { keyItemStages, pipelines } from '@sqlsweep/pipelines';

export interface StageKindPlan { stage: string; role: string; needed: number; reused: number }

export interface SweepPlan {
  config: SweepConfig;
  source: string;
  version: DatasetVersion;
  items: StoredItem[];
  variants: Array<VariantSpec & { id: string }>;
  stages: PlannedStage[];
  /** Per stage kind: distinct stage jobs still to run, and distinct stages whose stored result is reused. */
  byStage: StageKindPlan[];
  stageJobs: number;
  reused: number;
  llmCalls: number;
  simulated: boolean;
}

export interface PlannerDeps {
  datasets: DatasetRepository;
  runs: RunRepository;
  stages: StageRepository;
  /** Throws for an unknown model or a missing key, before anything is written. */
  assertModelsUsable(models: string[]): void;
  isSimulated(model: string): boolean;
}

/** Grid -> variants -> per-item stage graphs -> content-hashed keys, minus what is already stored. */
export class Planner {
  constructor(private readonly deps: PlannerDeps) {}

  async plan(config: SweepConfig, source: string): Promise<SweepPlan> {
    try {
      this.deps.assertModelsUsable(config.models);
    } catch (e) {
      if (isLlmError(e)) throw new SweepConfigError(source, 'models', e.message);
      throw e;
    }
    const version = await this.deps.datasets.findVersion(config.dataset, config.datasetVersion);
    if (!version) {
      throw new SweepConfigError(source, config.datasetVersion ? 'datasetVersion' : 'dataset',
        `no registered dataset "${config.dataset}"${config.datasetVersion ? ` with a version starting ${config.datasetVersion}` : ''}` +
        ` (register it with: sqlsweep datasets add ${config.dataset} --format bird|spider|minibench --path DIR)`);
    }
    const items = await this.deps.datasets.listItems(version.id, { split: config.split, ...config.items });
    if (items.length === 0) throw new SweepConfigError(source, 'items', `selects no ${config.split} items of dataset "${config.dataset}"`);

    const variants = expandVariants(config).map((v) => ({ ...v, id: randomUUID() }));
    const stages: PlannedStage[] = [];
    const kindOf = new Map<string, { stage: string; role: string; keys: Set<string> }>();
    for (const variant of variants) {
      for (const item of items) {
        for (const s of keyItemStages(pipelines[variant.pipeline], variant, { datasetVersion: version.contentHash, itemId: item.itemId })) {
          stages.push({ variantId: variant.id, itemId: item.itemId, stage: s.stage, stageKey: s.key, role: s.role, params: s.params, inputs: s.inputs, isFinal: s.final });
          const kind = kindOf.get(s.stage) ?? { stage: s.stage, role: s.role, keys: new Set<string>() };
          kind.keys.add(s.key);
          kindOf.set(s.stage, kind);
        }
      }
    }
    const allKeys = [...new Set(stages.map((s) => s.stageKey))];
    const stored = await this.deps.stages.existingKeys(allKeys);
    const byStage = [...kindOf.values()].map(({ stage, role, keys }) => {
      const reused = [...keys].filter((k) => stored.has(k)).length;
      return { stage, role, needed: keys.size - reused, reused };
    });
    return {
      config, source, version, items, variants, stages, byStage,
      stageJobs: allKeys.length - stored.size,
      reused: stored.size,
      llmCalls: byStage.filter((s) => s.role === 'llm').reduce((n, s) => n + s.needed, 0),
      simulated: config.models.some((m) => this.deps.isSimulated(m)),
    };
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
      variants: plan.variants.map((v) => ({ id: v.id, variantKey: v.key, label: v.label, pipeline: v.pipeline, model: v.model, sampleIndex: v.sampleIndex, params: v.params })),
      stages: plan.stages,
    });
  }
}
