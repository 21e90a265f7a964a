import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadBird } from './bird-loader';
import { DatasetError } from './errors';
import { loadSpider } from './spider-loader';
import type { Dataset, DatasetFormat } from './types';

export interface LoadDatasetOptions {
  format: DatasetFormat;
  path: string;
  /** Distinct values sampled per column for schema prompts (default 3). */
  sampleValues?: number;
}

/**
 * Loads a dataset folder into the common schema model. Fatal problems (missing or malformed required files) throw
 * a DatasetError naming the file; per-item problems are collected in `problems` and loading goes on.
 */
export async function loadDataset(opts: LoadDatasetOptions): Promise<Dataset> {
  const root = resolve(opts.path);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new DatasetError(root, 'dataset folder does not exist');
  const sampleValues = opts.sampleValues ?? 3;
  switch (opts.format) {
    case 'spider':
      return loadSpider(root, sampleValues);
    case 'bird':
    case 'minibench':
      return loadBird(root, opts.format, sampleValues);
    default:
      throw new DatasetError(root, `unknown dataset format "${String(opts.format)}" (expected spider, bird or minibench)`);
  }
}
