import type { NewPlanKey } from '@sqlsweep/db';
import type { ChunkStage } from './stage-chunks';

export interface CostEstimate { llmCalls: number; inputTokens: number; outputTokens: number; costUsd: number }
export interface StageKindPlan extends CostEstimate { stage: string; role: string; needed: number; reused: number }

/** Prices one stage still needed: undefined when it is not an LLM stage; `llmCalls` 0 when it certainly skips its call. */
export type NeededStageEstimator = (s: ChunkStage) => Promise<CostEstimate | undefined>;

export function zeroEstimate(): CostEstimate {
  return { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
}

export function addEstimate(a: CostEstimate, b: CostEstimate): CostEstimate {
  return { llmCalls: a.llmCalls + b.llmCalls, inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}

/**
 * The plan's counts, accumulated chunk by chunk: per stage kind the distinct keys still needed and those reused, and
 * the estimate of the needed LLM stages. A key counts once, at its first place in plan order (the writer says which
 * keys a chunk brought first), so the totals are those of the whole plan counted at once, whatever the chunk size.
 */
export class PlanTally {
  private readonly kinds = new Map<string, StageKindPlan>();

  constructor(private readonly estimateNeeded: NeededStageEstimator) {}

  async add(chunk: readonly ChunkStage[], fresh: readonly NewPlanKey[]): Promise<void> {
    const firstSeen = new Map(fresh.map((k) => [k.stageKey, k.stored]));
    for (const s of chunk) {
      const stored = firstSeen.get(s.stage.stageKey);
      if (stored === undefined) continue;
      firstSeen.delete(s.stage.stageKey);
      let kind = this.kinds.get(s.stage.stage);
      if (!kind) {
        kind = { stage: s.stage.stage, role: s.stage.role, needed: 0, reused: 0, ...zeroEstimate() };
        this.kinds.set(s.stage.stage, kind);
      }
      if (stored) {
        kind.reused += 1;
        continue;
      }
      kind.needed += 1;
      const e = await this.estimateNeeded(s);
      if (e) Object.assign(kind, addEstimate(kind, e));
    }
  }

  /** Per stage kind, in `order` (kinds it leaves out last, as they came). */
  byStage(order: readonly string[] = []): StageKindPlan[] {
    const rank = new Map(order.map((stage, i) => [stage, i]));
    return [...this.kinds.values()].map((k) => ({ ...k }))
      .sort((a, b) => (rank.get(a.stage) ?? order.length) - (rank.get(b.stage) ?? order.length));
  }

  totals(): { stageJobs: number; reused: number; estimate: CostEstimate } {
    const kinds = [...this.kinds.values()];
    return {
      stageJobs: kinds.reduce((t, k) => t + k.needed, 0),
      reused: kinds.reduce((t, k) => t + k.reused, 0),
      estimate: kinds.reduce<CostEstimate>((t, k) => addEstimate(t, k), zeroEstimate()),
    };
  }
}
