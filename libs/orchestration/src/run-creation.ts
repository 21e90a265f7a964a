import { parseSweepConfig, type SweepConfig } from '@sqlsweep/contracts';
import type { Advancer } from './advancer';
import type { PlannedSweep, Planner, StageKindPlan } from './planner';

/** A sweep config to plan and, unless `dryRun`, store as a run and start. */
export interface RunRequest {
  configText: string;
  /** Names the config in errors: a file path, or what the API caller called it. */
  source: string;
  /** Fields set over the parsed config (a schedule's priority and cache namespace). */
  overrides?: Partial<Pick<SweepConfig, 'priority' | 'cacheNamespace'>>;
  dryRun?: boolean;
}

/** What the API answers about a plan. */
export interface PlanSummary {
  variants: number;
  items: number;
  stageJobs: number;
  reused: number;
  byStage: StageKindPlan[];
  simulated: boolean;
}

export interface CreatedRun { runId?: string; summary: PlanSummary }

/** Plans and creates runs: in this process (`planAndCreateRun`) or off its event loop (`PlanThread`). */
export type RunCreator = (request: RunRequest) => Promise<CreatedRun>;

export function planSummary(plan: PlannedSweep): PlanSummary {
  return { variants: plan.variants.length, items: plan.items.length, stageJobs: plan.stageJobs, reused: plan.reused, byStage: plan.byStage, simulated: plan.simulated };
}

/**
 * Parses, plans and stores the run as it plans (streaming, one transaction), then enqueues its ready stages: what
 * POST /runs and a schedule's fire do. A dry run takes the same path and stores nothing.
 */
export async function planAndCreateRun(parts: { planner: Planner; advancer: Advancer }, request: RunRequest): Promise<CreatedRun> {
  const config = { ...parseSweepConfig(request.configText, request.source), ...request.overrides };
  const { plan, runId } = await parts.planner.planRun(config, request.source, { dryRun: request.dryRun });
  const summary = planSummary(plan);
  if (!runId) return { summary };
  await parts.advancer.reconcile(runId);
  return { runId, summary };
}
