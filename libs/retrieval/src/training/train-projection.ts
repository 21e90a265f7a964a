import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset } from '@sqlsweep/datasets';
import { tableDocuments } from '../documents/builders';
import type { Encoder } from '../encoder/encoder';
import type { EncoderConfigInput } from '../encoder/encoder-config';
import { RetrievalError } from '../errors';
import { goldTablesOf } from '../eval/gold-tables';
import { nonZeroRows, type TokenMatrix } from '../token-matrix';

export interface TrainProjectionOptions {
  dataset: Dataset;
  /** the encoder to fine-tune, opened from `baseModelDir`; it must not already use a projection file */
  encoder: Encoder;
  baseModelDir: string;
  /** where the fine-tuned encoder is written (model, tokenizer, projection.bin, config.json) */
  outDir: string;
  split?: 'train' | 'dev';
  epochs?: number;
  learningRate?: number;
  withEvidence?: boolean;
  /** deterministic shuffling of the items between epochs */
  seed?: number;
}

export interface TrainProjectionResult {
  outDir: string;
  items: number;
  /** mean softmax cross-entropy over the tables of each item's database, per epoch */
  lossPerEpoch: number[];
}

interface Example {
  dbId: string;
  /** active query rows */
  query: TokenMatrix;
  tables: TokenMatrix[];
  gold: number[];
}

/** Forward of one MaxSim under projection W (row-major [dim, dim], u = W x) with per-row L2 normalisation. */
function project(W: Float64Array, m: TokenMatrix): { v: Float64Array; norms: Float64Array } {
  const dim = m.dim;
  const v = new Float64Array(m.rows * dim);
  const norms = new Float64Array(m.rows);
  for (let r = 0; r < m.rows; r++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      let u = 0;
      for (let k = 0; k < dim; k++) u += W[j * dim + k] * m.data[r * dim + k];
      v[r * dim + j] = u;
      norm += u * u;
    }
    norm = Math.sqrt(norm) || 1;
    norms[r] = norm;
    for (let j = 0; j < dim; j++) v[r * dim + j] /= norm;
  }
  return { v, norms };
}

/** gW += ((g - (g·v) v) / |u|) x^T for one row: backprop through normalisation and the projection. */
function accumulate(gW: Float64Array, g: Float64Array, v: Float64Array, vOffset: number, norm: number, x: Float32Array, xOffset: number, dim: number): void {
  let dot = 0;
  for (let j = 0; j < dim; j++) dot += g[j] * v[vOffset + j];
  for (let j = 0; j < dim; j++) {
    const gu = (g[j] - dot * v[vOffset + j]) / norm;
    if (gu === 0) continue;
    for (let k = 0; k < dim; k++) gW[j * dim + k] += gu * x[xOffset + k];
  }
}

type Projected = ReturnType<typeof project>;

function lossAndGradient(W: Float64Array, example: Example, docs: Projected[], gW: Float64Array | null, docGrads: Float64Array[] | null): number {
  const dim = example.query.dim;
  const q = project(W, example.query);
  const matches: Int32Array[] = [];
  const scores = docs.map((d, t) => {
    const rows = example.tables[t].rows;
    const best = new Int32Array(example.query.rows).fill(-1);
    let score = 0;
    for (let i = 0; i < example.query.rows; i++) {
      let max = -Infinity;
      for (let r = 0; r < rows; r++) {
        let dot = 0;
        for (let k = 0; k < dim; k++) dot += q.v[i * dim + k] * d.v[r * dim + k];
        if (dot > max) {
          max = dot;
          best[i] = r;
        }
      }
      if (rows > 0) score += max;
    }
    matches.push(best);
    return score;
  });
  const top = Math.max(...scores);
  const exp = scores.map((s) => Math.exp(s - top));
  const total = exp.reduce((a, b) => a + b, 0);
  const target = new Set(example.gold);
  const loss = -example.gold.reduce((sum, g) => sum + Math.log(exp[g] / total), 0) / example.gold.length;
  if (!gW || !docGrads) return loss;
  // Gradients w.r.t. the normalised vectors are summed first; the projection gradient is taken once per row.
  const gq = new Float64Array(example.query.rows * dim);
  scores.forEach((_, t) => {
    const dLds = exp[t] / total - (target.has(t) ? 1 / example.gold.length : 0);
    if (Math.abs(dLds) < 1e-7) return;
    for (let i = 0; i < example.query.rows; i++) {
      const r = matches[t][i];
      if (r < 0) continue;
      for (let k = 0; k < dim; k++) {
        gq[i * dim + k] += dLds * docs[t].v[r * dim + k];
        docGrads[t][r * dim + k] += dLds * q.v[i * dim + k];
      }
    }
  });
  for (let i = 0; i < example.query.rows; i++) accumulate(gW, gq.subarray(i * dim, (i + 1) * dim), q.v, i * dim, q.norms[i], example.query.data, i * dim, dim);
  return loss;
}

function shuffled<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0 || 1;
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Fine-tunes a linear projection on top of an encoder's token vectors, as RB-SQL fine-tunes its retrievers:
 * for every training question, softmax cross-entropy of MaxSim scores over the tables of its database, the gold
 * tables (from the gold SQL) as positives. Writes a new encoder directory using the same model and tokenizer
 * with `projection.bin`, loaded by `openEncoder` like any export with a separate projection.
 */
export async function trainProjection(options: TrainProjectionOptions): Promise<TrainProjectionResult> {
  const { encoder } = options;
  if (encoder.config.projectionFile) throw new RetrievalError('ENCODER_CONFIG_INVALID', `${options.baseModelDir}: encoder already has a projection (${encoder.config.projectionFile}); fine-tune its base instead`);
  const dim = encoder.dim;
  const split = options.split ?? 'train';
  const databases = new Map(options.dataset.databases.map((db) => [db.dbId, db]));
  const tableMatrices = new Map<string, TokenMatrix[]>();
  const examples: Example[] = [];
  for (const item of options.dataset.items.filter((i) => i.split === split)) {
    const database = databases.get(item.dbId);
    if (!database || database.tables.length < 2) continue;
    const names = database.tables.map((t) => t.name);
    const gold = goldTablesOf(item.goldSql, names).tables.map((t) => names.indexOf(t));
    if (gold.length === 0) continue;
    let tables = tableMatrices.get(item.dbId);
    if (!tables) {
      tables = await encoder.encodeDocuments(tableDocuments(database).map((d) => d.text));
      tableMatrices.set(item.dbId, tables);
    }
    const [raw] = await encoder.encodeQueries([options.withEvidence && item.evidence ? `${item.question} ${item.evidence}` : item.question]);
    const active = nonZeroRows(raw);
    const data = new Float32Array(active.length * dim);
    active.forEach((r, i) => data.set(raw.data.subarray(r * dim, (r + 1) * dim), i * dim));
    examples.push({ dbId: item.dbId, query: { rows: active.length, dim, data }, tables, gold });
  }
  if (examples.length === 0) throw new RetrievalError('DATASET_INVALID', `${options.dataset.root}: no ${split} item with gold tables to train on`);

  const W = new Float64Array(dim * dim);
  for (let j = 0; j < dim; j++) W[j * dim + j] = 1;
  const learningRate = options.learningRate ?? 0.2;
  const batchSize = 8;
  const lossPerEpoch: number[] = [];
  for (let epoch = 0; epoch < (options.epochs ?? 5); epoch++) {
    let lossSum = 0;
    // Batches hold questions of one database, so its tables are projected once per batch.
    const batches: Example[][] = [];
    for (const dbId of [...new Set(examples.map((e) => e.dbId))].sort()) {
      const own = shuffled(examples.filter((e) => e.dbId === dbId), (options.seed ?? 7) + epoch);
      for (let start = 0; start < own.length; start += batchSize) batches.push(own.slice(start, start + batchSize));
    }
    for (const batch of shuffled(batches, (options.seed ?? 7) * 31 + epoch)) {
      const gW = new Float64Array(dim * dim);
      const tables = batch[0].tables;
      const docs = tables.map((t) => project(W, t));
      const docGrads = tables.map((t) => new Float64Array(t.rows * dim));
      for (const example of batch) lossSum += lossAndGradient(W, example, docs, gW, docGrads);
      tables.forEach((table, t) => {
        for (let r = 0; r < table.rows; r++) {
          const g = docGrads[t].subarray(r * dim, (r + 1) * dim);
          if (g.some((x) => x !== 0)) accumulate(gW, g, docs[t].v, r * dim, docs[t].norms[r], table.data, r * dim, dim);
        }
      });
      for (let i = 0; i < W.length; i++) W[i] -= (learningRate * gW[i]) / batch.length;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    lossPerEpoch.push(lossSum / examples.length);
  }

  // The runner computes out[j] = sum_k x[k] * P[k * dim + j]: P is W transposed.
  const projection = new Float32Array(dim * dim);
  for (let j = 0; j < dim; j++) for (let k = 0; k < dim; k++) projection[k * dim + j] = W[j * dim + k];
  mkdirSync(options.outDir, { recursive: true });
  const base = encoder.config;
  for (const file of [base.modelFile, base.tokenizerFile, base.tokenizerConfigFile].filter((f): f is string => f !== undefined)) {
    copyFileSync(join(options.baseModelDir, file), join(options.outDir, file));
  }
  writeFileSync(join(options.outDir, 'projection.bin'), new Uint8Array(projection.buffer));
  const { builder: _builder, ...rest } = base;
  const config: EncoderConfigInput = { ...rest, name: `${base.name}-ft`, projectionFile: 'projection.bin' };
  writeFileSync(join(options.outDir, 'config.json'), JSON.stringify(config, null, 2));
  return { outDir: options.outDir, items: examples.length, lossPerEpoch };
}
