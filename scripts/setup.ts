/**
 * Everything `npm test` and `npm run demo` need before they start: Redis and Postgres (started or installed when
 * missing, see infra/services.ts), the bundled benchmark, the bundled retrieval encoder (an ONNX model generated from
 * this repository's code), R3's default RAG corpus (WordNet glosses; apt-get installs wordnet-base when missing, see
 * rag-corpus.ts) and the dashboard, built. Idempotent and quick when there is nothing to do.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildDashboard } from '@sqlsweep/dashboard';
import { buildMinibench } from '@sqlsweep/minibench';
import { ensureServices, type ServiceEndpoints } from '@sqlsweep/infra';
import { buildBundledEncoder } from '@sqlsweep/retrieval';
import { buildNeutralRagCorpus, setupCorpusDir } from './rag-corpus';

export const projectDir = resolve(__dirname, '..');

export async function setup(opts: { allowEmbeddedPostgres: boolean; log?: (line: string) => void }): Promise<ServiceEndpoints> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const endpoints = await ensureServices({ projectDir, allowEmbeddedPostgres: opts.allowEmbeddedPostgres, env: process.env, log });
  mkdirSync(join(projectDir, '.sqlsweep'), { recursive: true });
  writeFileSync(join(projectDir, '.sqlsweep', 'services.json'), `${JSON.stringify(endpoints, null, 2)}\n`);
  const bench = await buildMinibench();
  log(`minibench: ${bench.rebuilt ? 'built' : 'up to date'} (${bench.counts.databases} databases, ${bench.counts.train} train + ${bench.counts.dev} dev items)`);
  const encoder = buildBundledEncoder({ dir: join(projectDir, '.sqlsweep', 'models', 'sqlsweep-ngram-colbert') });
  log(`bundled encoder: ${encoder.built ? 'built' : 'up to date'} (${encoder.dir})`);
  const corpus = buildNeutralRagCorpus({ corpusDir: setupCorpusDir(projectDir), log });
  log(`R3 RAG corpus: ${corpus.built ? 'built' : 'up to date'} (${corpus.path}, ${Math.round(corpus.bytes / 1024)} KiB of WordNet noun glosses)`);
  const dashboard = await buildDashboard();
  log(`dashboard: ${dashboard.rebuilt ? 'built' : 'up to date'} (${dashboard.outDir})`);
  return endpoints;
}
