import type { SimulationReport } from '../types';

type HeaderSource = { get(name: string): string | null } | undefined | null;

export const SIM_PROBABILITY_HEADER = 'x-sim-probability';
export const SIM_FEATURES_HEADER = 'x-sim-features';

/** What reading the simulator's report gave: the report, nothing (a real model), or why a malformed one was dropped. */
export interface SimulationReading {
  simulation?: SimulationReport;
  /** Set when the endpoint sent a report that could not be read; the answer itself stands. */
  problem?: string;
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/** Checks a probability and a features object from any source; `where` names the source in the problem text. */
export function readSimulationReport(probability: unknown, features: unknown, where: string): SimulationReading {
  if (probability === undefined && features === undefined) return {};
  const p = typeof probability === 'string' && probability.trim() !== '' ? Number(probability) : probability;
  if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) {
    return { problem: `${where}: probability ${JSON.stringify(probability)} is not a number between 0 and 1` };
  }
  let f = features;
  if (typeof features === 'string') {
    try {
      f = JSON.parse(features);
    } catch (err) {
      return { problem: `${where}: features are not JSON (${(err as Error).message})` };
    }
  }
  if (typeof f !== 'object' || f === null || Array.isArray(f)) {
    return { problem: `${where}: features must be a JSON object, got ${f === null ? 'null' : Array.isArray(f) ? 'an array' : typeof f}` };
  }
  const bad = Object.entries(f).find(([, v]) => !isScalar(v));
  if (bad) return { problem: `${where}: feature ${bad[0]} is not a number, boolean or string` };
  return { simulation: { probability: p, features: f as SimulationReport['features'] } };
}

/** The simulator's `x-sim-probability` and `x-sim-features` headers (llm-sim sends them on every answer). */
export function simulationFromHeaders(headers: HeaderSource): SimulationReading {
  const probability = headers?.get(SIM_PROBABILITY_HEADER) ?? undefined;
  const features = headers?.get(SIM_FEATURES_HEADER) ?? undefined;
  return readSimulationReport(probability, features, `${SIM_PROBABILITY_HEADER}/${SIM_FEATURES_HEADER} headers`);
}

/** A reading as ProviderResult fields. */
export function simulationFields(r: SimulationReading): { simulation?: SimulationReport; simulationProblem?: string } {
  return { ...(r.simulation ? { simulation: r.simulation } : {}), ...(r.problem ? { simulationProblem: r.problem } : {}) };
}

/** The `sim` field llm-sim adds to each batch result line (`{ probability, features }`), where no headers exist. */
export function simulationFromBatchLine(entry: unknown): SimulationReading {
  const sim = (entry as { sim?: unknown } | null)?.sim;
  if (sim === undefined || sim === null) return {};
  if (typeof sim !== 'object') return { problem: `batch result line sim field: not an object (${typeof sim})` };
  const { probability, features } = sim as { probability?: unknown; features?: unknown };
  return readSimulationReport(probability, features ?? null, 'batch result line sim field');
}
