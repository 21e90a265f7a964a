import type { BirdRowSemantics, EvalSemantics } from './compare-execution';
import type { SoftF1Version } from './soft-f1';

export type ScorerMetric = 'ex' | 'soft-f1';

/**
 * A named, versioned way of scoring an item. Every stored or printed number names the scorer that produced it
 * (`id`, e.g. `bird-ex@1`), so numbers made under different semantics are never compared unawares. A scorer's
 * version changes whenever a verdict it gives could change.
 */
export interface Scorer {
  name: string;
  version: string;
  /** `name@version`. */
  id: string;
  format: EvalSemantics;
  metric: ScorerMetric;
  /** Spider: the database's own file only, or every file with ".sqlite" in its name in its folder (test suite). */
  databases: 'original' | 'suite';
  birdRows?: BirdRowSemantics;
  softF1?: SoftF1Version;
  /** The official implementation it follows. */
  follows: string;
}

function scorer(s: Omit<Scorer, 'id'>): Scorer {
  return { ...s, id: `${s.name}@${s.version}` };
}

/** In preference order: the first of a format and metric is its default. */
export const SCORERS: readonly Scorer[] = [
  scorer({ name: 'spider-ts', version: '2', format: 'spider', metric: 'ex', databases: 'suite',
    follows: 'test-suite-sql-eval evaluation.py --etype exec, default flags, over every .sqlite in the database folder' }),
  scorer({ name: 'spider-ex', version: '2', format: 'spider', metric: 'ex', databases: 'original',
    follows: 'test-suite-sql-eval evaluation.py --etype exec on <db_id>/<db_id>.sqlite alone (Spider EX)' }),
  scorer({ name: 'bird-ex', version: '2', format: 'bird', metric: 'ex', databases: 'original', birdRows: 'set',
    follows: "BIRD evaluation.py / mini-dev evaluation_ex.py (DAMO): set(pred) == set(gold)" }),
  scorer({ name: 'bird-ex-unordered', version: '1', format: 'bird', metric: 'ex', databases: 'original', birdRows: 'set-unordered-cells',
    follows: 'BIRD EX with the values of each row sorted before the set comparison (column order free)' }),
  scorer({ name: 'bird-ex-bag', version: '1', format: 'bird', metric: 'ex', databases: 'original', birdRows: 'bag',
    follows: 'proposed duplicate-preserving BIRD EX: rows compared as multisets' }),
  scorer({ name: 'bird-soft-f1', version: '2024-06', format: 'bird', metric: 'soft-f1', databases: 'original', softF1: '2024-06',
    follows: 'mini-dev llm/src/evaluation_f1.py at 8c7df91 (the release published mini-dev Soft-F1 figures used)' }),
  scorer({ name: 'bird-soft-f1', version: '2024-07', format: 'bird', metric: 'soft-f1', databases: 'original', softF1: '2024-07',
    follows: 'mini-dev llm/src/evaluation_f1.py at 1a78e71 (= evaluation/evaluation_f1.py at 47f116d)' }),
  scorer({ name: 'bird-soft-f1', version: '2025-06', format: 'bird', metric: 'soft-f1', databases: 'original', softF1: '2025-06',
    follows: 'mini-dev evaluation/evaluation_f1.py at bee73fe (current)' }),
];

/** The default scorer of a format and metric; VES judges correctness with the format's default EX scorer. */
export function defaultScorer(format: EvalSemantics, metric: ScorerMetric | 'ves'): Scorer {
  const wanted = metric === 'ves' ? 'ex' : metric;
  const found = SCORERS.find((s) => s.format === format && s.metric === wanted);
  if (!found) throw new Error(`no ${metric} scorer for --format ${format} (known: ${SCORERS.map((s) => s.id).join(', ')})`);
  return found;
}

/**
 * The scorer `spec` names: `name@version`, or `name` for its first (default) version. An unknown name or version
 * is an error listing the known ones.
 */
export function findScorer(spec: string): Scorer {
  const [name, version] = spec.split('@');
  const found = SCORERS.find((s) => s.name === name && (version === undefined || s.version === version));
  if (!found) throw new Error(`unknown scorer "${spec}" (known: ${SCORERS.map((s) => s.id).join(', ')})`);
  return found;
}

/**
 * The scorer a sweep's evaluate stage stores EX under. Spider sweeps use `spider-ex`, not the test-suite one: a
 * dataset version registers one checksummed replica per database and no test-suite variants, and over that single
 * file the two give the same verdicts. BIRD and minibench use DAMO's set comparison.
 */
export function sweepScorer(format: EvalSemantics): Scorer {
  return findScorer(format === 'spider' ? 'spider-ex@2' : 'bird-ex@2');
}
