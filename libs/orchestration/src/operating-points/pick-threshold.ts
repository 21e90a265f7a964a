import { describeOperatingPoint, type OperatingPoint } from '@sqlsweep/contracts';
import type { RetrievalCurvePoint } from '@sqlsweep/db';

/**
 * The threshold of a curve that stands for an operating point:
 * - `{ recall: r }`: the largest threshold whose recall is at least r (keep as few tables as the target allows);
 * - `{ reduction: x }`: the smallest threshold whose reduction ratio is at least x (lose as few gold tables as it allows).
 * Recall falls and reduction rises with the threshold, so both are the point of the curve nearest the target on its
 * safe side. Throws when no threshold of the curve reaches the target, naming the best it reaches.
 */
export function pickThreshold(points: readonly RetrievalCurvePoint[], target: OperatingPoint): RetrievalCurvePoint {
  if (points.length === 0) throw new Error('the retrieval curve has no points');
  const byValue = [...points].sort((a, b) => a.value - b.value);
  if ('recall' in target) {
    const reaching = byValue.filter((p) => p.recall >= target.recall);
    if (reaching.length > 0) return reaching[reaching.length - 1];
    const best = byValue.reduce((a, b) => (b.recall > a.recall ? b : a));
    throw new Error(`no threshold reaches ${describeOperatingPoint(target)}: the best is recall ${best.recall.toFixed(3)} at ${best.value}`);
  }
  const reaching = byValue.find((p) => p.reductionRatio >= target.reduction);
  if (reaching) return reaching;
  const best = byValue.reduce((a, b) => (b.reductionRatio > a.reductionRatio ? b : a));
  throw new Error(`no threshold reaches ${describeOperatingPoint(target)}: the best is reduction ${best.reductionRatio.toFixed(3)} at ${best.value}`);
}
