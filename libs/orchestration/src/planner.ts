import { randomUUID } from 'node:crypto';
import { contentHash, expandVariants, SweepConfigError, type ResolvedVariantSpec, type SweepConfig } from '@sqlsweep/contracts';
import type { DatasetRepository, DatasetVersion, NewRunHeader, PlannedStage, ResolvedKnobRecord, RunRepository, StageRepository, StoredItem } from '@sqlsweep/db';
import { isLlmError } from '@sqlsweep/llm';
import { pipelines, VariantKeyer, type LlmCall, type StageFaults } from '@sqlsweep/pipelines';
import { admitStageJobs, admitVariants, defaultAdmissionBudget, type AdmissionBudget } from './admission';
import { checkDatasetNeeds } from './dataset-needs';
import { FileKnobHasher } from './file-knob-hashes';
import { OperatingPointResolver, type OperatingPointDeps } from './operating-points/resolver';
import { limitHeapGrowth } from './planning/heap-growth';
import { PlanTally, type CostEstimate, type StageKindPlan } from './planning/plan-tally';
import { stageChunks, stageKindOrder } from './planning/stage-chunks';
import { stageEstimator } from './planning/stage-estimator';

export type { CostEstimate, StageKindPlan } from './planning/plan-tally';

/** A sweep as planned, without its stages: what a dry run prints and what a created run's row says. */
export interface PlannedSweep {
  config: SweepConfig;
  source: string;
  version: DatasetVersion;
  items: StoredItem[];
  /** Operating points already resolved: params hold numbers only, `resolvedKnobs` says what each stands for. */
  variants: Array<ResolvedVariantSpec & { id: string; resolvedKnobs: ResolvedKnobRecord[] }>;
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

/** A planned sweep with every stage in memory (`Planner.plan`): for small sweeps and tests. */
export interface SweepPlan extends PlannedSweep {
  stages: PlannedStage[];
}

/** How far a plan has got: stages expanded and keyed, run_stages rows written (none in a dry run), chunks. */
export interface PlanProgress { stages: number; rows: number; chunks: number }

export interface PlannerDeps {
  datasets: DatasetRepository;
  runs: RunRepository;
  stages: StageRepository;
  /** Throws for an unknown model or a missing key, before anything is written. */
  assertModelsUsable(models: string[]): void;
  isSimulated(model: string): boolean;
  /**
   * Prices a call from its model, messages, maxTokens and expectedOutputTokens alone (not its temperature or sample
   * index): the planner prices calls equal in those once.
   */
  estimateCall(call: LlmCall): { inputTokens: number; outputTokens: number; costUsd: number };
  /** The largest sweep planned; default `defaultAdmissionBudget`. */
  budget?: AdmissionBudget;
  /** The folder file knobs may name files in (`FileKnobHasher`); default this process's. */
  corpusDir?: string;
  /** What resolves threshold operating points (`theta: { recall: 0.9 }`); without it a sweep that gives one is refused. */
  operatingPoints?: Omit<OperatingPointDeps, 'datasets'>;
  /** Test-only fault switches (`StageFaults`): the stages they break are keyed apart. Never set in production. */
  faults?: StageFaults;
  /** Stages expanded, keyed and written per chunk; default `defaultPlanChunkSize`. Memory holds a few chunks. */
  chunkSize?: number;
}

/** How one plan streams. */
export interface PlanStreamOptions {
  /** Stages per chunk; default the planner's (`PlannerDeps.chunkSize`). */
  chunkSize?: number;
  /** Called after each chunk is written and counted (progress). A throw abandons the plan: nothing is kept. */
  onChunk?: (progress: PlanProgress) => void | Promise<void>;
}

/** Stages per chunk: large enough that a chunk's round trips cost little per row, small enough to hold at once. */
export const defaultPlanChunkSize = 1_000;

/**
 * Chunks keyed but not yet counted, at most: enough that neither this thread nor Postgres waits on the other when a
 * chunk takes one of them longer than usual; memory holds this many chunks.
 */
const MAX_CHUNKS_IN_FLIGHT = 4;

/**
 * Grid -> variants -> per-item stage graphs -> content-hashed keys, minus what is already stored. A sweep is
 * admitted first: its variant and stage-job counts are computed from the grid and item counts and checked against
 * the budget, and the dataset against what the variants need, before anything is expanded per item.
 *
 * Then the plan streams: stages are expanded and keyed in chunks (`stageChunks`, item by item), each chunk written
 * in one statement (`PlanWriter`), which also says which of its keys the plan had not met and whether a result is
 * stored for each, then counted and estimated (`PlanTally`), while the next chunks are keyed. Memory holds the items,
 * the variants' keyers and a few chunks, whatever the number of stages. The whole plan is one transaction: a run is
 * committed whole or not at all (docs/architecture.md, "Streaming plans"). A dry run takes the same path, writing
 * only the plan's keys, and rolls back.
 */
export class Planner {
  constructor(private readonly deps: PlannerDeps) {}

  /** Plans and, unless `dryRun`, stores the sweep as a new run, streaming; returns the plan without its stages. */
  async planRun(config: SweepConfig, source: string, opts: PlanStreamOptions & { dryRun?: boolean } = {}): Promise<{ plan: PlannedSweep; runId?: string }> {
    return this.stream(config, source, { ...opts, store: !opts.dryRun });
  }

  /** Plans without storing anything and returns every stage too: memory grows with the plan (small sweeps, tests). */
  async plan(config: SweepConfig, source: string): Promise<SweepPlan> {
    const stages: PlannedStage[] = [];
    const { plan } = await this.stream(config, source, { store: false, collect: (chunk) => stages.push(...chunk) });
    return { ...plan, stages };
  }

  /** Stores a plan made by `plan` as a new run (one transaction) and returns its id. */
  async createRun(plan: SweepPlan): Promise<string> {
    return this.deps.runs.createRun({ ...this.runHeader(plan), stageJobs: plan.stageJobs, reusedStages: plan.reused, estimate: plan.estimate, stages: plan.stages });
  }

  private async stream(config: SweepConfig, source: string, opts: PlanStreamOptions & { store: boolean; collect?: (chunk: PlannedStage[]) => void }): Promise<{ plan: PlannedSweep; runId?: string }> {
    limitHeapGrowth();
    const admitted = await this.admit(config, source);
    const { version, items, trainItems } = admitted;
    const variants = await this.resolveOperatingPoints(config, source, version);
    const header: Omit<PlannedSweep, 'byStage' | 'stageJobs' | 'reused' | 'llmCalls' | 'estimate'> = {
      config, source, version, items, variants, simulated: config.models.some((m) => this.deps.isSimulated(m)),
    };
    const trainItemIds = trainItems.map((i) => i.itemId);
    // Every keyer is made (and every file knob hashed) before anything is written: a missing corpus or a graph that
    // cannot be keyed is refused with nothing to undo.
    const files = new FileKnobHasher(config, source, this.deps.corpusDir);
    const keyed: Array<{ variant: PlannedSweep['variants'][number]; keyer: VariantKeyer }> = [];
    for (const variant of variants) {
      keyed.push({ variant, keyer: new VariantKeyer(pipelines[variant.pipeline], variant, {
        datasetVersion: version.contentHash, cacheNamespace: config.cacheNamespace, trainItemIds, fileHashes: await files.hashesFor(variant), faults: this.deps.faults,
      }) });
    }
    const kindOrder = stageKindOrder(variants.map((v) => pipelines[v.pipeline].graph(v)), trainItemIds.length > 0);
    const tally = new PlanTally(stageEstimator({ datasets: this.deps.datasets, versionId: version.id, items: [...items, ...trainItems], estimateCall: this.deps.estimateCall }));
    const chunkSize = opts.chunkSize ?? this.deps.chunkSize ?? defaultPlanChunkSize;
    const run = opts.store ? this.runHeader(header) : undefined;
    const { runId, result } = await this.deps.runs.writePlan(run, async (writer) => {
      let stages = 0;
      let chunks = 0;
      // Chunks in flight: Postgres stores them, in order, while this thread keys the next ones. Each is counted once
      // the chunks before it are (the writer's "new to the plan" answers are in plan order).
      let counted: Promise<void> = Promise.resolve();
      const inFlight: Array<Promise<void>> = [];
      for (const chunk of stageChunks(keyed, items.map((i) => i.itemId), chunkSize)) {
        const planned = chunk.map((c) => c.stage);
        const written = writer.add(planned);
        written.catch(() => undefined); // awaited in turn, below
        counted = counted.then(async () => {
          await tally.add(chunk, await written);
          opts.collect?.(planned);
          stages += chunk.length;
          chunks += 1;
          await opts.onChunk?.({ stages, rows: writer.written.rows, chunks });
        });
        counted.catch(() => undefined); // awaited once MAX_CHUNKS_IN_FLIGHT are, or after the last
        inFlight.push(counted);
        if (inFlight.length >= MAX_CHUNKS_IN_FLIGHT) await inFlight.shift();
      }
      await counted;
      const totals = tally.totals();
      return { stageJobs: totals.stageJobs, reusedStages: totals.reused, estimate: totals.estimate };
    });
    const plan: PlannedSweep = { ...header, byStage: tally.byStage(kindOrder), stageJobs: result.stageJobs, reused: result.reusedStages, llmCalls: result.estimate.llmCalls, estimate: result.estimate };
    return { plan, runId };
  }

  /**
   * Checks the models, the variant count, the dataset and its items, what the variants need of it and the stage-job
   * count, before anything is expanded per item or written.
   */
  private async admit(config: SweepConfig, source: string): Promise<{ version: DatasetVersion; items: StoredItem[]; trainItems: StoredItem[] }> {
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
    return { version, items, trainItems };
  }

  private runHeader(plan: Pick<PlannedSweep, 'config' | 'source' | 'version' | 'items' | 'variants' | 'simulated'>): NewRunHeader {
    return {
      sweep: { name: plan.config.name, source: plan.source, config: plan.config, configHash: contentHash(plan.config) },
      datasetVersionId: plan.version.id,
      priority: plan.config.priority,
      itemCount: plan.items.length,
      simulated: plan.simulated,
      cacheNamespace: plan.config.cacheNamespace,
      llmMode: plan.config.llmMode,
      variants: plan.variants.map((v) => ({ id: v.id, variantKey: v.key, label: v.label, pipeline: v.pipeline, model: v.model, sampleIndex: v.sampleIndex, params: v.params, resolvedKnobs: v.resolvedKnobs })),
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
}
