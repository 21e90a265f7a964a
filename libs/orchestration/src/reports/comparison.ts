import type { ComparisonDto, CostAccuracyDto } from '@sqlsweep/contracts';
import type { ReportRepository } from '@sqlsweep/db';
import { mcnemar, pairedBootstrap } from '../compare';
import { paretoFlags } from './pareto';
import { ReportQueryError } from './query-error';
import type { VariantRecord } from './views';
interface Side { runId: string; variant: VariantRecord }

const CONFIDENCE = 0.95;

/**
 * Resolves both sides: a named variant must belong to its run; an unnamed one is the run's only variant, or the
 * variant with the other side's variant key (two runs of the same sweep).
 */
export async function resolveSides(repo: ReportRepository, q: { runA: string; variantA?: string; runB: string; variantB?: string }): Promise<[Side, Side]> {
  const [va, vb, datasetA, datasetB] = await Promise.all([repo.variants(q.runA), repo.variants(q.runB), repo.datasetNameOfRun(q.runA), repo.datasetNameOfRun(q.runB)]);
  if (!datasetA || va.length === 0) throw new ReportQueryError('query.runA', `no run ${q.runA} with variants`);
  if (!datasetB || vb.length === 0) throw new ReportQueryError('query.runB', `no run ${q.runB} with variants`);
  // Items pair by id: only runs over the same dataset (any version of it) can be compared.
  if (datasetA !== datasetB) {
    throw new ReportQueryError('query.runB', `run ${q.runB} is over dataset ${datasetB}, run ${q.runA} over ${datasetA}: items do not pair`);
  }
  const named = (list: VariantRecord[], id: string | undefined, field: string) => {
    if (id === undefined) return undefined;
    const v = list.find((x) => x.id === id);
    if (!v) throw new ReportQueryError(field, `variant ${id} is not part of the run`);
    return v;
  };
  let a = named(va, q.variantA, 'query.variantA');
  let b = named(vb, q.variantB, 'query.variantB');
  const pick = (list: VariantRecord[], other: VariantRecord | undefined, field: string) => {
    if (other) {
      const same = list.find((x) => x.variant_key === other.variant_key);
      if (same) return same;
    }
    if (list.length === 1) return list[0];
    throw new ReportQueryError(field, `the run has ${list.length} variants${other ? ` and none with the key of ${other.label}` : ''}: name one`);
  };
  a ??= pick(va, b, 'query.variantA');
  b ??= pick(vb, a, 'query.variantB');
  return [{ runId: q.runA, variant: a }, { runId: q.runB, variant: b }];
}

/**
 * Why the two sides' EX may not be comparable: their verdicts came from different scorers (`bird-ex@2` against
 * `bird-ex-bag@1`), one side names none (stored before scorers were named) or a side mixes several. Null when both
 * name the same single scorer, or neither names one.
 */
export function scorerWarning(a: string | null, b: string | null): string | null {
  const mixed = [['A', a], ['B', b]].filter(([, s]) => s?.includes(','));
  if (mixed.length > 0) {
    return `${mixed.map(([side, s]) => `side ${side} mixes the scorers ${s}`).join(' and ')}: its EX is not one scorer's, so the delta may mix scorer differences with the change compared`;
  }
  if (a === b) return null;
  const name = (s: string | null) => s ?? 'no named scorer (stored before scorers were named)';
  return `A was scored by ${name(a)}, B by ${name(b)}: EX under different scorers is not comparable, so the delta may be a scorer difference rather than a change in the predictions`;
}

export async function compareVariants(repo: ReportRepository, q: { runA: string; variantA?: string; runB: string; variantB?: string; resamples: number; seed: number }): Promise<ComparisonDto> {
  const [a, b] = await resolveSides(repo, q);
  const pairs = await repo.pairedOutcomes({ runId: a.runId, variantId: a.variant.id }, { runId: b.runId, variantId: b.variant.id });
  if (pairs.length === 0) throw new ReportQueryError('query', 'the two sides have no scored item in common');
  const [scoresA, scoresB] = await Promise.all([repo.variantScores(a.runId), repo.variantScores(b.runId)]);
  const side = (s: Side, scores: typeof scoresA, pick: 'a' | 'b') => {
    const score = scores.scores.find((x) => x.variantId === s.variant.id);
    const correct = pairs.filter((p) => p[pick]).length;
    const parseFailures = pairs.filter((p) => (pick === 'a' ? p.parseFailedA : p.parseFailedB)).length;
    return {
      runId: s.runId, variantId: s.variant.id, label: s.variant.label, items: pairs.length, correct, parseFailures,
      ex: (100 * correct) / pairs.length, costUsd: score?.costUsd ?? 0, simulated: score?.simulated ?? false,
      scorer: score?.scorer ?? null,
    };
  };
  const boot = pairedBootstrap(pairs, { resamples: q.resamples, seed: q.seed, confidence: CONFIDENCE });
  const levels = [...new Set(pairs.map((p) => p.difficulty ?? 'unknown'))].sort();
  const sa = side(a, scoresA, 'a');
  const sb = side(b, scoresB, 'b');
  return {
    a: sa, b: sb, pairedItems: pairs.length, delta: boot.delta,
    interval: { low: boot.low, high: boot.high, confidence: CONFIDENCE, resamples: boot.resamples },
    mcnemar: mcnemar(pairs),
    flipped: { improved: pairs.filter((p) => !p.a && p.b).map((p) => p.itemId), regressed: pairs.filter((p) => p.a && !p.b).map((p) => p.itemId) },
    byDifficulty: levels.map((difficulty) => {
      const mine = pairs.filter((p) => (p.difficulty ?? 'unknown') === difficulty);
      const exA = (100 * mine.filter((p) => p.a).length) / mine.length;
      const exB = (100 * mine.filter((p) => p.b).length) / mine.length;
      return { difficulty, items: mine.length, exA, exB, delta: exB - exA };
    }),
    simulated: sa.simulated || sb.simulated,
    scorerWarning: scorerWarning(sa.scorer, sb.scorer),
  };
}

export async function costAccuracy(repo: ReportRepository, runId: string): Promise<CostAccuracyDto> {
  const [variants, { scores }] = await Promise.all([repo.variants(runId), repo.variantScores(runId)]);
  const rows = variants.flatMap((v) => {
    const s = scores.find((x) => x.variantId === v.id);
    return s ? [{ runId, variantId: v.id, label: v.label, ex: (100 * s.correct) / s.items, costUsd: s.costUsd, costPerCorrectUsd: s.correct > 0 ? s.costUsd / s.correct : null, simulated: s.simulated, scorer: s.scorer }] : [];
  });
  const flags = paretoFlags(rows);
  return { points: rows.map((r, i) => ({ ...r, pareto: flags[i] })) };
}
