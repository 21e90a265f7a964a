import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadBird } from './bird-loader';
import { DatasetError } from './errors';
import { loadSpider } from './spider-loader';
import { loadSpiderVariant } from './spider-variant-loader';
import { DATASET_SOURCE_FORMATS, type Dataset, type DatasetSourceFormat } from './types';

export interface LoadDatasetOptions {
  format: DatasetSourceFormat;
  path: string;
  /**
   * spider-syn, spider-realistic, spider-dk: the Spider folder whose databases, tables.json and training questions
   * the variant's questions run on (default: `path` itself, a folder holding both).
   */
  spiderPath?: string;
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
  if (opts.spiderPath !== undefined && !opts.format.startsWith('spider-')) {
    throw new DatasetError(resolve(opts.spiderPath), `a Spider folder is given for format ${opts.format}; only spider-syn, spider-realistic and spider-dk run on one`);
  }
  switch (opts.format) {
    case 'spider':
      return loadSpider(root, sampleValues);
    case 'bird':
    case 'minibench':
      return loadBird(root, opts.format, sampleValues);
    case 'spider-syn':
    case 'spider-realistic':
    case 'spider-dk':
      return loadSpiderVariant(root, opts.format, opts.spiderPath === undefined ? undefined : resolve(opts.spiderPath), sampleValues);
    default:
      throw new DatasetError(root, `unknown dataset format "${String(opts.format)}" (expected ${DATASET_SOURCE_FORMATS.join(', ')})`);
  }
}
