import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RetrievalError } from '../errors';
import type { Encoder } from '../encoder/encoder';
import { EmbeddedMultiVectorIndex, type EmbeddedIndexOptions } from './embedded-index';
import type { DocumentKind, IndexedDocument, RetrievalDocument } from './types';

/** Bump when the on-disk layout or the way documents are encoded changes. */
export const INDEX_FORMAT_VERSION = 1;
export const INDEX_MANIFEST_FILE = 'manifest.json';

export interface IndexSpec {
  /** content hash (or name@version) of the dataset the documents come from */
  datasetVersion: string;
  /** the database the documents belong to; null for cross-database corpora (skeletons, RAG) */
  dbId: string | null;
  kind: DocumentKind;
  /** version of the document builder that produced `documents` (see DOCUMENT_BUILDER_VERSION) */
  builderVersion: number;
  documents: RetrievalDocument[];
}

export interface IndexManifest {
  formatVersion: number;
  key: string;
  kind: DocumentKind;
  datasetVersion: string;
  dbId: string | null;
  builderVersion: number;
  encoder: { name: string; fingerprint: string; dim: number };
  documents: number;
  tokenRows: number;
  bytes: number;
  buildMs: number;
  createdAt: string;
}

export interface BuildIndexDeps {
  encoder: Encoder;
  /** where indexes live, e.g. `.sqlsweep/indexes` */
  indexRoot: string;
  /** documents sent to the encoder per request (progress granularity). Default 256. */
  chunkSize?: number;
  onProgress?: (encoded: number, total: number) => void;
}

export interface BuildIndexResult {
  key: string;
  dir: string;
  /** true when an index with this key already existed and nothing was encoded */
  reused: boolean;
  manifest: IndexManifest;
}

/** The key of an index: a hash of the documents, the encoder and the builder/format versions. */
export function indexKey(spec: IndexSpec, encoderFingerprint: string): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ formatVersion: INDEX_FORMAT_VERSION, builderVersion: spec.builderVersion, kind: spec.kind, encoderFingerprint }));
  const sorted = [...spec.documents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const doc of sorted) hash.update(`\n${JSON.stringify([doc.id, doc.kind, doc.text, doc.payload])}`);
  return hash.digest('hex');
}

export function readIndexManifest(dir: string): IndexManifest {
  const path = join(dir, INDEX_MANIFEST_FILE);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as IndexManifest;
  } catch (error) {
    throw new RetrievalError('INDEX_NOT_FOUND', `${path}: ${(error as Error).message}`);
  }
}

function assertUniqueIds(documents: RetrievalDocument[]): void {
  const seen = new Set<string>();
  for (const doc of documents) {
    if (seen.has(doc.id)) throw new RetrievalError('DATASET_INVALID', `document id "${doc.id}" appears twice in the index spec`);
    seen.add(doc.id);
  }
}

/**
 * Builds an embedded index once per key: reused when `<indexRoot>/<key>/manifest.json` exists, otherwise
 * encoded into a private staging directory and renamed into place, so two concurrent builds of the same key
 * both succeed and leave one complete index (the second to finish discards its copy).
 */
export async function buildIndex(spec: IndexSpec, deps: BuildIndexDeps): Promise<BuildIndexResult> {
  assertUniqueIds(spec.documents);
  const key = indexKey(spec, deps.encoder.fingerprint);
  const dir = join(deps.indexRoot, key);
  if (existsSync(join(dir, INDEX_MANIFEST_FILE))) return { key, dir, reused: true, manifest: readIndexManifest(dir) };

  const started = Date.now();
  const index = new EmbeddedMultiVectorIndex(deps.encoder.dim);
  const chunkSize = deps.chunkSize ?? 256;
  for (let start = 0; start < spec.documents.length; start += chunkSize) {
    const chunk = spec.documents.slice(start, start + chunkSize);
    const matrices = await deps.encoder.encodeDocuments(chunk.map((d) => d.text));
    await index.upsert(chunk.map((doc, i): IndexedDocument => ({ ...doc, vectors: matrices[i] })));
    deps.onProgress?.(Math.min(start + chunkSize, spec.documents.length), spec.documents.length);
  }

  mkdirSync(deps.indexRoot, { recursive: true });
  const staging = join(deps.indexRoot, `.staging-${key.slice(0, 16)}-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(staging);
  try {
    const tokenRows = await index.save(staging);
    const manifest: IndexManifest = {
      formatVersion: INDEX_FORMAT_VERSION,
      key,
      kind: spec.kind,
      datasetVersion: spec.datasetVersion,
      dbId: spec.dbId,
      builderVersion: spec.builderVersion,
      encoder: { name: deps.encoder.config.name, fingerprint: deps.encoder.fingerprint, dim: deps.encoder.dim },
      documents: spec.documents.length,
      tokenRows,
      bytes: tokenRows * deps.encoder.dim * 4,
      buildMs: Date.now() - started,
      createdAt: new Date().toISOString(),
    };
    // The manifest is written last: its presence marks a complete index.
    writeFileSync(join(staging, INDEX_MANIFEST_FILE), JSON.stringify(manifest, null, 2));
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!existsSync(join(dir, INDEX_MANIFEST_FILE))) throw error;
      return { key, dir, reused: true, manifest: readIndexManifest(dir) };
    }
    return { key, dir, reused: false, manifest };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Opens a built embedded index by key. */
export async function openIndex(indexRoot: string, key: string, options: EmbeddedIndexOptions = {}): Promise<{ index: EmbeddedMultiVectorIndex; manifest: IndexManifest }> {
  const dir = join(indexRoot, key);
  const manifest = readIndexManifest(dir);
  return { index: await EmbeddedMultiVectorIndex.load(dir, manifest.encoder.dim, options), manifest };
}
