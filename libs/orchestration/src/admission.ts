import { countVariants, expandEntryVariants, SweepConfigError, type SweepConfig } from '@sqlsweep/contracts';
import { pipelines, trainSetStages } from '@sqlsweep/pipelines';

/**
 * The largest sweep the planner takes on. A plan streams (its memory does not grow with it), but its time does: per
 * million stage rows, about 30 s of the planner's CPU and 35 s of Postgres's to store them (bench/scale).
 */
export interface AdmissionBudget {
  maxVariants: number;
  /** Stage jobs counted per variant, item and stage, before variants that agree on a stage share it. */
  maxStageJobs: number;
}

export const defaultAdmissionBudget: AdmissionBudget = { maxVariants: 10_000, maxStageJobs: 5_000_000 };

const n = (x: number) => x.toLocaleString('en-US');

function refuse(source: string, path: string, product: string, total: number, entries: number, largest: number, budget: number, what: string, env: string): never {
  const all = entries > 1 && total !== largest ? ` (${n(total)} in all)` : '';
  throw new SweepConfigError(source, path, `${product} = ${n(largest)} ${what}${all} exceeds the budget of ${n(budget)} ${what} (${env})`);
}

/**
 * Refuses a sweep of more variants than the budget. Counts from the grid sizes alone, so a 10^7-variant grid is
 * refused as fast as a small one is admitted; the product named is that of the largest pipeline entry.
 */
export function admitVariants(config: SweepConfig, source: string, budget: AdmissionBudget): number {
  const entries = countVariants(config);
  const total = entries.reduce((t, e) => t + e.count, 0);
  if (total <= budget.maxVariants) return total;
  const largest = entries.reduce((a, b) => (b.count > a.count ? b : a));
  const product = [
    ...largest.factors.map((f) => `${n(f.size)} ${f.knob}`),
    `${largest.models} model${largest.models === 1 ? '' : 's'}`,
    `${largest.repeats} repeat${largest.repeats === 1 ? '' : 's'}`,
  ].join(' x ');
  refuse(source, `pipelines[${largest.index}].grid`, product, total, entries.length, largest.count, budget.maxVariants, 'variants', 'SQLSWEEP_MAX_VARIANTS');
}

/**
 * Refuses a sweep of more stage jobs than the budget, from the variants' stage graphs and the item counts: one job
 * per (variant, evaluated item, item stage), per (variant, train item, train-items stage) and per (variant, training
 * set), the rows a plan holds before identical stages are shared. Expands variants (at most `maxVariants` of them,
 * admitted first) but no items.
 */
export function admitStageJobs(config: SweepConfig, source: string, counts: { items: number; trainItems: number }, budget: AdmissionBudget): number {
  const entries = config.pipelines.map((entry, index) => {
    let jobs = 0;
    let variants = 0;
    let fewest = Infinity;
    let most = 0;
    let trainStages = 0;
    for (const variant of expandEntryVariants(config, entry)) {
      const graph = pipelines[variant.pipeline].graph(variant);
      const train = graph.filter((node) => node.scope === 'train-items').length;
      const item = graph.length - train;
      jobs += item * counts.items + train * counts.trainItems + (counts.trainItems > 0 ? trainSetStages(graph).length : 0);
      variants += 1;
      fewest = Math.min(fewest, item);
      most = Math.max(most, item);
      trainStages = Math.max(trainStages, train);
    }
    return { index, jobs, variants, fewest, most, trainStages };
  });
  const total = entries.reduce((t, e) => t + e.jobs, 0);
  if (total <= budget.maxStageJobs) return total;
  const largest = entries.reduce((a, b) => (b.jobs > a.jobs ? b : a));
  const stages = largest.fewest === largest.most ? `${largest.most}` : `${largest.fewest} to ${largest.most}`;
  const train = largest.trainStages > 0 && counts.trainItems > 0 ? ` + ${n(counts.trainItems)} train items x up to ${largest.trainStages} stages per variant` : '';
  const product = `${n(largest.variants)} variants x ${n(counts.items)} items x ${stages} stages${train}`;
  refuse(source, `pipelines[${largest.index}]`, product, total, entries.length, largest.jobs, budget.maxStageJobs, 'stage jobs', 'SQLSWEEP_MAX_STAGE_JOBS');
}
