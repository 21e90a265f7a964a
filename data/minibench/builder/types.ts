/** The shapes of the minibench sources and of the built benchmark. */

export const MINIBENCH_DIFFICULTIES = ['simple', 'moderate', 'challenging'] as const;
export const MINIBENCH_SPLITS = ['train', 'dev'] as const;
export type MinibenchDifficulty = (typeof MINIBENCH_DIFFICULTIES)[number];
export type MinibenchSplit = (typeof MINIBENCH_SPLITS)[number];

export interface BuildMinibenchOptions {
  /** Folder with one sub-folder per database; defaults to data/minibench/src. */
  srcDir?: string;
  /** Output folder (replaced atomically); defaults to data/minibench/dist. */
  outDir?: string;
  /** Rebuild even when the manifest says the outputs are current. */
  force?: boolean;
}

export interface MinibenchCounts {
  databases: number;
  train: number;
  dev: number;
}

export interface BuildMinibenchResult {
  outDir: string;
  sourceHash: string;
  rebuilt: boolean;
  counts: MinibenchCounts;
}

/** A question as written in src/<db_id>/questions.json. */
export interface MinibenchSourceQuestion {
  question: string;
  evidence: string;
  SQL: string;
  difficulty: MinibenchDifficulty;
  split: MinibenchSplit;
}

/** A built item in dist/dev.json and dist/train.json (BIRD item shape). */
export interface MinibenchItem {
  question_id: number;
  db_id: string;
  question: string;
  evidence: string;
  SQL: string;
  difficulty: MinibenchDifficulty;
}

/** An entry of dist/dev_tables.json (Spider/BIRD tables.json shape). */
export interface MinibenchTablesEntry {
  db_id: string;
  table_names_original: string[];
  table_names: string[];
  column_names_original: [number, string][];
  column_names: [number, string][];
  column_types: string[];
  primary_keys: (number | number[])[];
  foreign_keys: [number, number][];
}

/** No build time or path in it: two builds of the same sources are byte-identical, so they register as one version. */
export interface MinibenchManifest {
  sourceHash: string;
  databases: Record<string, { tables: number; rows: number }>;
  counts: MinibenchCounts;
}

