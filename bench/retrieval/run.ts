// Retrieval benchmark: node -r @swc-node/register bench/retrieval/run.ts [--docs 10000] [--queries 200]
// Writes bench/results/retrieval.json with the figures and the machine they were measured on.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadDataset, type DatabaseSchema } from '@sqlsweep/datasets';
import {
  buildBundledEncoder,
  buildIndex,
  columnDocuments,
  DOCUMENT_BUILDER_VERSION,
  EmbeddedMultiVectorIndex,
  openEncoder,
  openIndex,
  openMaxSimScorer,
  type RetrievalDocument,
  type TokenMatrix,
} from '@sqlsweep/retrieval';

const REPO = resolve(__dirname, '../..');
const SAMPLES = resolve(REPO, 'test/fixtures/benchmark-samples');

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/** Real column documents (Spider sample + BIRD sample), cycled with renamed tables up to `count`. */
function columnCorpus(databases: DatabaseSchema[], count: number): RetrievalDocument[] {
  const base = databases.flatMap((db) => columnDocuments(db));
  return Array.from({ length: count }, (_, i) => {
    const doc = base[i % base.length];
    const copy = Math.floor(i / base.length);
    return { ...doc, id: `${doc.id}#${copy}`, text: copy === 0 ? doc.text : doc.text.replace(' || ', `_${copy} || `), payload: { ...doc.payload, dbId: `db${copy}` } };
  });
}

async function main(): Promise<void> {
  const docCount = arg('docs', 10_000);
  const queryCount = arg('queries', 200);
  const work = mkdtempSync(join(tmpdir(), 'sqlsweep-bench-retrieval-'));
  const modelDir = join(work, 'model');
  let started = performance.now();
  buildBundledEncoder({ dir: modelDir });
  const encoderBuildMs = performance.now() - started;

  const spider = await loadDataset({ format: 'spider', path: join(SAMPLES, 'spider-sample') });
  const bird = await loadDataset({ format: 'bird', path: join(SAMPLES, 'bird-sample') });
  const databases = [...spider.databases, ...bird.databases];
  const questions = [...spider.items, ...bird.items].map((item) => item.question).slice(0, queryCount);
  const corpus = columnCorpus(databases, docCount);

  const encoder = await openEncoder({ modelDir, intraOpNumThreads: 1, batchSize: 32 });
  try {
    // Query encoding latency: one question per request, as a retrieval stage sends them.
    await encoder.encodeQueries(questions.slice(0, 5));
    const queryLatencies: number[] = [];
    const queryMatrices: TokenMatrix[] = [];
    for (const question of questions) {
      started = performance.now();
      queryMatrices.push((await encoder.encodeQueries([question]))[0]);
      queryLatencies.push(performance.now() - started);
    }

    // Bulk build of a 10k-column index with the event loop of this (the worker's) thread monitored.
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    started = performance.now();
    const built = await buildIndex(
      { datasetVersion: 'bench', dbId: null, kind: 'column', builderVersion: DOCUMENT_BUILDER_VERSION, documents: corpus },
      { encoder, indexRoot: join(work, 'indexes'), chunkSize: 512 },
    );
    const buildMs = performance.now() - started;
    lag.disable();
    const tokensEncoded = built.manifest.tokenRows;

    // Exact MaxSim latency over the first 1,000 and all 10,000 documents.
    const { index: full } = await openIndex(join(work, 'indexes'), built.key);
    const small = new EmbeddedMultiVectorIndex(encoder.dim);
    const firstThousand = corpus.slice(0, 1000);
    const smallMatrices = await encoder.encodeDocuments(firstThousand.map((d) => d.text));
    await small.upsert(firstThousand.map((d, i) => ({ ...d, vectors: smallMatrices[i] })));
    const searchLatency = async (index: EmbeddedMultiVectorIndex, queries: number) => {
      const latencies: number[] = [];
      for (const query of queryMatrices.slice(0, queries)) {
        const t = performance.now();
        await index.search(query, { topK: 10 });
        latencies.push(performance.now() - t);
      }
      return { p50Ms: round(percentile(latencies, 50)), p95Ms: round(percentile(latencies, 95)), queries: latencies.length };
    };
    const maxSim1k = await searchLatency(small, 100);
    const maxSim10k = await searchLatency(full, 20);

    // The same searches scored by onnxruntime's MatMul in a scorer thread (first search registers the corpus).
    const scorer = await openMaxSimScorer({ intraOpNumThreads: 1 });
    const onnxSmall = new EmbeddedMultiVectorIndex(encoder.dim, { scorer, scorerMinRows: 1 });
    await onnxSmall.upsert(firstThousand.map((d, i) => ({ ...d, vectors: smallMatrices[i] })));
    const { index: onnxFull } = await openIndex(join(work, 'indexes'), built.key, { scorer, scorerMinRows: 1 });
    started = performance.now();
    await onnxFull.search(queryMatrices[0], { topK: 10 });
    const registerMs = performance.now() - started;
    await onnxSmall.search(queryMatrices[0], { topK: 10 });
    const onnx1k = await searchLatency(onnxSmall, 100);
    const onnx10k = await searchLatency(onnxFull, 100);
    await scorer.close();

    const result = {
      benchmark: 'retrieval',
      createdAt: new Date().toISOString(),
      machine: { cpu: cpus()[0].model, cores: cpus().length, memoryGiB: round(totalmem() / 1024 ** 3, 1), node: process.version },
      encoder: { name: encoder.config.name, dim: encoder.dim, provider: encoder.provider, intraOpNumThreads: 1, batchSize: 32, buildMs: round(encoderBuildMs, 0) },
      queryEncoding: { queries: queryLatencies.length, p50Ms: round(percentile(queryLatencies, 50)), p95Ms: round(percentile(queryLatencies, 95)) },
      documentEncoding: {
        documents: docCount,
        tokens: tokensEncoded,
        seconds: round(buildMs / 1000),
        documentsPerSecond: round(docCount / (buildMs / 1000), 1),
        tokensPerSecond: round(tokensEncoded / (buildMs / 1000), 0),
        note: 'buildIndex end to end: worker-thread encoding, index assembly, write to disk',
      },
      embeddedMaxSim: {
        scalarJs: { documents1k: { documents: 1000, ...maxSim1k }, documents10k: { documents: docCount, tokenRows: built.manifest.tokenRows, ...maxSim10k } },
        onnxScorerThread: { documents1k: { documents: 1000, ...onnx1k }, documents10k: { documents: docCount, ...onnx10k }, firstSearchWithRegistrationMs: round(registerMs, 1), intraOpNumThreads: 1 },
        topK: 10,
        note: 'exact MaxSim, every document scored; 10k column documents = real Spider/BIRD sample columns cycled with renamed tables',
      },
      eventLoopDuringBulkBuild: {
        p50Ms: round(lag.percentile(50) / 1e6),
        p99Ms: round(lag.percentile(99) / 1e6),
        maxMs: round(lag.max / 1e6),
        note: 'monitorEventLoopDelay of the thread calling buildIndex while the encoder worker thread runs inference',
      },
    };
    mkdirSync(join(REPO, 'bench/results'), { recursive: true });
    writeFileSync(join(REPO, 'bench/results/retrieval.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await encoder.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
