import type { ReportRepository, ScheduleRepository } from '@sqlsweep/db';
import type { VariantComparison } from './regression-checker';

/** Both sides of a night-to-night comparison, as the dashboard's compare page takes them. */
export interface ComparedPair { runA: string; variantA: string; runB: string; variantB: string }

export interface ChangedStageDetail {
  stage: string; compared: number; changed: number;
  /** The (variant, item) pairs whose output changed, at most `itemLimit` of them (`changed` counts all). */
  items: Array<{ itemId: string; variantKey: string; label: string; variantId: string; previousVariantId: string }>;
}

export interface RegressionDetail {
  runId: string; schedule: string; previousRunId: string | null; regressed: boolean; checkedAt: string;
  variants: Array<VariantComparison & {
    /** Right the night before, wrong now; and the other way round. */
    flippedToWrongItems: string[]; flippedToRightItems: string[];
    /** The two nights' variants, for a link to their comparison; null when a side is gone. */
    compare: ComparedPair | null;
  }>;
  /** Stages whose stored outputs changed (most changes first), with the items that changed. */
  changedStages: ChangedStageDetail[];
}

/**
 * What the regression check of one scheduled run found, spelled out: per variant the flipped items and the pair to
 * compare, per changed stage the items whose output changed. Undefined when the run has no stored check.
 */
export async function regressionDetail(schedules: ScheduleRepository, reports: ReportRepository, runId: string, itemLimit = 200): Promise<RegressionDetail | undefined> {
  const check = await schedules.getCheck(runId);
  if (!check) return undefined;
  const stored = (Array.isArray(check.variants) ? check.variants : []) as VariantComparison[];
  const counts = (Array.isArray(check.changedStages) ? check.changedStages : []) as Array<{ stage: string; compared: number; changed: number }>;
  const prev = check.previousRunId;
  const [paired, changed, now, before] = prev
    ? await Promise.all([schedules.pairedItems(prev, runId), schedules.changedStageItems(prev, runId), reports.variants(runId), reports.variants(prev)])
    : [[], [], await reports.variants(runId), []];
  const variants = stored.map((v) => {
    const mine = paired.filter((p) => p.variantKey === v.variantKey);
    const a = before.find((x) => x.variant_key === v.variantKey);
    const b = now.find((x) => x.variant_key === v.variantKey);
    return {
      ...v,
      flippedToWrongItems: mine.filter((p) => p.a && !p.b).map((p) => p.itemId),
      flippedToRightItems: mine.filter((p) => !p.a && p.b).map((p) => p.itemId),
      compare: prev && a && b ? { runA: prev, variantA: a.id, runB: runId, variantB: b.id } : null,
    };
  });
  const changedStages = counts.filter((s) => s.changed > 0).sort((x, y) => y.changed - x.changed || x.stage.localeCompare(y.stage)).map((s) => ({
    ...s, items: changed.filter((c) => c.stage === s.stage).slice(0, itemLimit),
  }));
  return {
    runId, schedule: check.schedule, previousRunId: prev, regressed: check.regressed, checkedAt: check.checkedAt.toISOString(),
    variants, changedStages,
  };
}
