import type { SimulationReportDto } from '@sqlsweep/contracts';

/** `schemaRecall` → `schema recall`. */
const words = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

function value(name: string, v: unknown): string {
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  // Shares (recall) read as fractions; counts as whole numbers.
  if (typeof v === 'number') return Number.isInteger(v) && !/recall|share|ratio/i.test(name) ? String(v) : v.toFixed(2);
  return v === null ? '–' : String(v);
}

// The simulator's feature order (schema, examples, hints, feedback, hardness); Postgres' jsonb does not keep it.
const ORDER = ['schemaRecall', 'goldReachable', 'noiseTables', 'noiseColumns', 'examples', 'skeletonMatch', 'decomposition',
  'evidence', 'values', 'feedbackError', 'feedbackEmpty', 'feedbackExplanation', 'hardness'];
const rank = (name: string): number => (ORDER.includes(name) ? ORDER.indexOf(name) : ORDER.length);

/** `simulated: p = 0.62; schema recall 1.00, noise tables 3, skeleton match yes, …` */
export function simulationText(r: SimulationReportDto): string {
  const features = Object.entries(r.features)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([k, v]) => `${words(k)} ${value(k, v)}`);
  return `simulated: p = ${r.probability.toFixed(2)}; ${features.join(', ')}`;
}

/**
 * Why the simulator answered a stage as it did: the prompt features it read and the probability of a correct answer
 * they gave. The answer was right when one common draw per (model, question, sample) fell below `p`.
 */
export function SimulationReport({ report }: { report: SimulationReportDto | null }) {
  if (!report) return null;
  return (
    <p className="simulation" data-testid="stage-simulation" title="the simulator's prompt features and its probability of a correct answer: not a real model's behaviour">
      {simulationText(report)}
    </p>
  );
}
