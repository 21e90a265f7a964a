// Generates the scale dataset (see generate.ts and data/minibench/README.md, "Scale dataset").
// Run: npm run scale-dataset -- --out DIR [--dev 20000] [--train 5000] [--seed 0] [--force]
import { generateScaleDataset, ScaleDatasetError, type ScaleDatasetOptions } from './generate';

function wholeNumber(flag: string, v: string | undefined): number {
  const n = Number(v);
  if (v === undefined || !/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new ScaleDatasetError(`${flag}: expected a whole number >= 0, got "${v ?? ''}"`);
  return n;
}

function parseArgs(argv: string[]): ScaleDatasetOptions {
  const opts: Partial<ScaleDatasetOptions> = { dev: 20_000, train: 5_000, seed: 0 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--out') opts.outDir = argv[++i];
    else if (arg === '--dev') opts.dev = wholeNumber(arg, argv[++i]);
    else if (arg === '--train') opts.train = wholeNumber(arg, argv[++i]);
    else if (arg === '--seed') opts.seed = wholeNumber(arg, argv[++i]);
    else if (arg === '--minibench') opts.minibenchDir = argv[++i];
    else if (arg === '--force') opts.force = true;
    else throw new ScaleDatasetError(`unknown argument "${arg}" (expected --out DIR [--dev N] [--train N] [--seed N] [--minibench DIR] [--force])`);
  }
  if (!opts.outDir) throw new ScaleDatasetError('--out DIR is required');
  return opts as ScaleDatasetOptions;
}

async function main(): Promise<void> {
  const r = await generateScaleDataset(parseArgs(process.argv.slice(2)));
  const rate = r.generated ? ` in ${(r.elapsedMs / 1000).toFixed(1)} s (${Math.round(((r.counts.dev + r.counts.train) * 1000) / Math.max(1, r.elapsedMs))} items/s, ${r.rejected} candidates rejected)` : ' (already there: same seed and sizes)';
  console.log(`scale dataset: ${r.counts.dev} dev + ${r.counts.train} train items over ${r.counts.databases} databases in ${r.outDir}${rate}`);
  console.log(`register it: sqlsweep datasets add scale --format spider --path ${r.outDir}`);
}

main().catch((err: Error) => {
  process.stderr.write(`scale-dataset: ${err instanceof ScaleDatasetError ? err.message : err.stack}\n`);
  process.exit(err instanceof ScaleDatasetError ? 2 : 1);
});
