// Benchmark of the comparison statistics the API and the nightly checks compute on the orchestrator's event loop:
// the paired bootstrap (10,000 resamples) and McNemar's test at Spider-sample, Spider-dev and BIRD-dev sizes, with
// the textbook item-by-item bootstrap as the reference the count-based sampler replaces.
// Run: node -r @swc-node/register bench/compare-statistics/run.ts   ->   bench/results/compare-statistics.json
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { mcnemar, pairedBootstrap, type PairedOutcome } from '@sqlsweep/orchestration';

const ROOT = resolve(__dirname, '../..');
const RESAMPLES = 10_000;
const round = (x: number, digits = 2): number => Number(x.toFixed(digits));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** n items, A right on about 67 % and B on about 77 % (the two Spider-sample prediction files' EX), seeded. */
function pairsOf(n: number): PairedOutcome[] {
  let s = 42;
  const random = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296);
  return Array.from({ length: n }, (_, i) => {
    const a = random() < 0.67;
    return { itemId: `dev-${i}`, a, b: a ? random() < 0.9 : random() < 0.47 };
  });
}

function itemByItem(pairs: PairedOutcome[]): void {
  const diff = pairs.map((p) => Number(p.b) - Number(p.a));
  const deltas = new Float64Array(RESAMPLES);
  for (let r = 0; r < RESAMPLES; r++) {
    let sum = 0;
    for (let i = 0; i < diff.length; i++) sum += diff[Math.floor(Math.random() * diff.length)];
    deltas[r] = (100 * sum) / diff.length;
  }
  deltas.sort();
}

function timeMs(fn: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return round(median(times));
}

function main(): void {
  const loadAtStart = loadavg().map((l) => round(l));
  const sizes = [{ name: 'spider-sample', items: 297 }, { name: 'spider-dev', items: 1034 }, { name: 'bird-dev', items: 1534 }];
  const results = sizes.map(({ name, items }) => {
    const pairs = pairsOf(items);
    pairedBootstrap(pairs); // warm-up
    const interval = pairedBootstrap(pairs, { seed: 1 });
    return {
      name, items,
      interval: { delta: round(interval.delta), low: round(interval.low), high: round(interval.high) },
      bootstrapMsMedian: timeMs(() => pairedBootstrap(pairs), 15),
      itemByItemBootstrapMsMedian: timeMs(() => itemByItem(pairs), 3),
      mcnemarMsMedian: timeMs(() => mcnemar(pairs), 15),
    };
  });
  const out = {
    benchmark: 'compare-statistics',
    date: new Date().toISOString(),
    machine: { cpuModel: cpus()[0].model, cores: cpus().length, memoryGb: round(totalmem() / 2 ** 30, 1), loadAverageAtStart: loadAtStart },
    resamples: RESAMPLES,
    results,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/compare-statistics.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(JSON.stringify(out, null, 2));
}

main();
