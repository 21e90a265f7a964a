import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { hashDatasetFiles, loadDataset, type DatasetFormat } from '@sqlsweep/datasets';
import {
  BUNDLED_ENCODER_NAME,
  buildBundledEncoder,
  evaluateTableRetrieval,
  openEncoder,
  trainProjection,
  type ExecutionProviderName,
  type TableRetrievalEvalReport,
} from '@sqlsweep/retrieval';
import { createDb, RetrievalCurveRepository } from '@sqlsweep/db';
import { CURVE_THRESHOLDS, curveOptionsKey, curveOptionsOf, OrchestratorCore } from '@sqlsweep/orchestration';
import { cliEnv } from '../cli-env';
import { DEFAULT_INDEX_DIR } from './index-status';

export const DEFAULT_MODEL_DIR = join('.sqlsweep', 'models', BUNDLED_ENCODER_NAME);
export const DEFAULT_REPORT_DIR = join('.sqlsweep', 'reports');

function numberList(name: string) {
  return (value: string): number[] => {
    const numbers = value.split(',').map((v) => Number(v.trim()));
    if (numbers.length === 0 || numbers.some((n) => !Number.isFinite(n))) throw new InvalidArgumentError(`--${name} must be a comma-separated list of numbers, got "${value}"`);
    return numbers;
  };
}

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`--${name} must be a positive integer, got "${value}"`);
    return n;
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** RB-SQL Fig. 6 (a) as a table: recall and reduction ratio per θ, then per top-k. */
export function renderRetrieverEval(report: TableRetrievalEvalReport): string {
  const lines = [
    `table retrieval on ${report.dataset.format} ${report.dataset.split} (${report.items} items, ${report.meanTablesPerDatabase.toFixed(1)} tables/db), encoder ${report.encoder.name}${report.withEvidence ? ', question + evidence' : ''}`,
    `first-ranked table is gold: ${pct(report.firstIsGold)}`,
    '',
    'theta   recall  all-gold  reduction  kept/q',
    ...report.thresholds.map((p) => `${String(p.value).padEnd(6)}  ${pct(p.recall).padStart(6)}  ${pct(p.itemRecall).padStart(8)}  ${pct(p.reductionRatio).padStart(9)}  ${p.meanTablesKept.toFixed(2).padStart(6)}`),
    '',
    'top-k   recall  all-gold  reduction  kept/q',
    ...report.topK.map((p) => `${String(p.value).padEnd(6)}  ${pct(p.recall).padStart(6)}  ${pct(p.itemRecall).padStart(8)}  ${pct(p.reductionRatio).padStart(9)}  ${p.meanTablesKept.toFixed(2).padStart(6)}`),
  ];
  if (report.skippedItems.length) lines.push('', `skipped (no schema table in gold SQL or unknown db): ${report.skippedItems.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

interface EvalOptions {
  format: DatasetFormat;
  path: string;
  split: 'dev' | 'train';
  modelDir: string;
  indexDir: string;
  thresholds: number[];
  topK: number[];
  withEvidence?: boolean;
  muPrime?: number;
  out?: string;
  store: boolean;
  intraOpThreads: number;
  provider: ExecutionProviderName;
}

/** `sqlsweep retriever build-encoder` and `sqlsweep retriever eval`. */
export function registerRetrieverCommand(program: Command): void {
  const retriever = program.command('retriever').description('retrieval encoders and their evaluation');

  retriever
    .command('build-encoder')
    .description('build the bundled late-interaction encoder (model.onnx, tokenizer.json, config.json); skipped when up to date')
    .option('--dir <dir>', 'target directory', DEFAULT_MODEL_DIR)
    .action((opts: { dir: string }) => {
      const result = buildBundledEncoder({ dir: opts.dir });
      process.stdout.write(`${result.built ? 'built' : 'up to date'}: ${result.dir}\n`);
    });

  retriever
    .command('train')
    .description("fine-tune a projection on a dataset's train split (positives: the gold SQL's tables), written as a new encoder directory")
    .addOption(new Option('--format <format>', 'dataset layout').choices(['spider', 'bird', 'minibench']).default('minibench'))
    .option('--path <dir>', 'dataset folder', join('data', 'minibench', 'dist'))
    .option('--model-dir <dir>', 'base encoder directory', DEFAULT_MODEL_DIR)
    .option('--out-dir <dir>', 'fine-tuned encoder directory (default: <model-dir>-ft)')
    .option('--epochs <n>', 'passes over the train split', positiveInt('epochs'), 5)
    .option('--learning-rate <x>', 'SGD step', Number, 0.2)
    .option('--with-evidence', 'append the item evidence to the question (BIRD setting)')
    .action(async (opts: { format: DatasetFormat; path: string; modelDir: string; outDir?: string; epochs: number; learningRate: number; withEvidence?: boolean }) => {
      const dataset = await loadDataset({ format: opts.format, path: opts.path });
      const encoder = await openEncoder({ modelDir: opts.modelDir });
      try {
        const outDir = opts.outDir ?? `${opts.modelDir.replace(/\/+$/, '')}-ft`;
        const result = await trainProjection({ dataset, encoder, baseModelDir: opts.modelDir, outDir, epochs: opts.epochs, learningRate: opts.learningRate, withEvidence: opts.withEvidence });
        process.stdout.write(`trained on ${result.items} questions; loss per epoch: ${result.lossPerEpoch.map((l) => l.toFixed(3)).join(' ')}\n`);
        process.stdout.write(`encoder: ${result.outDir}\n`);
      } finally {
        await encoder.close();
      }
    });

  retriever
    .command('eval')
    .description('table-retrieval recall and reduction ratio at several thresholds (RB-SQL Fig. 6), stored as JSON')
    .addOption(new Option('--format <format>', 'dataset layout').choices(['spider', 'bird', 'minibench']).default('minibench'))
    .option('--path <dir>', 'dataset folder', join('data', 'minibench', 'dist'))
    .addOption(new Option('--split <split>', 'items to evaluate').choices(['dev', 'train']).default('dev'))
    .option('--model-dir <dir>', 'encoder directory (config.json + ONNX + tokenizer.json)', DEFAULT_MODEL_DIR)
    .option('--index-dir <dir>', 'where indexes are built and reused', DEFAULT_INDEX_DIR)
    .option('--thresholds <list>', 'θ values', numberList('thresholds'), [2, 3, 4, 5, 6, 7, 8, 9, 10])
    .option('--top-k <list>', 'top-k cut-offs', numberList('top-k'), [1, 2, 3, 5])
    .option('--with-evidence', 'append the item evidence to the question (BIRD setting)')
    .option('--mu-prime <x>', "μ' of the large-table rule", Number)
    .option('--out <file>', 'report JSON (default .sqlsweep/reports/retriever-eval-<format>-<split>.json)')
    .option('--no-store', "don't store the curve in Postgres (where the planner resolves threshold operating points from)")
    .option('--intra-op-threads <n>', 'onnxruntime threads', positiveInt('intra-op-threads'), 1)
    .addOption(new Option('--provider <p>', 'execution provider').choices(['cpu', 'cuda']).default('cpu'))
    .action(async (opts: EvalOptions) => {
      const dataset = await loadDataset({ format: opts.format, path: opts.path });
      const datasetHash = await hashDatasetFiles(dataset.root);
      const datasetVersion = `${opts.format}:${datasetHash.slice(0, 16)}`;
      const encoder = await openEncoder({ modelDir: opts.modelDir, intraOpNumThreads: opts.intraOpThreads, executionProvider: opts.provider });
      try {
        const report = await evaluateTableRetrieval({
          dataset,
          datasetVersion,
          encoder,
          indexRoot: opts.indexDir,
          split: opts.split,
          // The planner's fine grid too, so that the stored curve resolves operating points as precisely as its own.
          thresholds: [...new Set([...opts.thresholds, ...CURVE_THRESHOLDS])].sort((a, b) => a - b),
          topKs: opts.topK,
          withEvidence: opts.withEvidence,
          muPrime: opts.muPrime,
          onProgress: (done, total) => { if (done === total || done % 50 === 0) process.stderr.write(`scored ${done}/${total} items\n`); },
        });
        const curvePoints = report.thresholds;
        report.thresholds = curvePoints.filter((p) => opts.thresholds.includes(p.value));
        const out = opts.out ?? join(DEFAULT_REPORT_DIR, `retriever-eval-${opts.format}-${opts.split}.json`);
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
        process.stdout.write(renderRetrieverEval(report));
        process.stdout.write(`report: ${out}\n`);
        if (opts.store) {
          const optionsKey = curveOptionsKey(curveOptionsOf(opts.split, { withEvidence: opts.withEvidence, muPrime: opts.muPrime }));
          const { DATABASE_URL } = cliEnv();
          await OrchestratorCore.prepareDatabase(DATABASE_URL);
          const db = createDb(DATABASE_URL);
          try {
            await new RetrievalCurveRepository(db).put({ datasetHash, encoderFingerprint: encoder.fingerprint, optionsKey, encoderName: encoder.config.name, items: report.items, points: curvePoints });
            process.stdout.write(`curve stored for operating points: dataset ${datasetHash.slice(0, 12)}, encoder ${encoder.config.name}, ${optionsKey}\n`);
          } finally {
            await db.destroy();
          }
        }
      } finally {
        await encoder.close();
      }
    });
}
