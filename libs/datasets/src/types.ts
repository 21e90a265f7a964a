/** How a registered dataset is evaluated (Spider's or BIRD's semantics) and stored: a dataset version's format. */
export type DatasetFormat = 'spider' | 'bird' | 'minibench';

/** Spider's robustness variants: their own questions over Spider's databases (Spider-DK adds databases of its own). */
export type SpiderVariantFormat = 'spider-syn' | 'spider-realistic' | 'spider-dk';

/** The layouts a folder can be loaded from (`datasets add --format`); a Spider variant loads as format 'spider'. */
export type DatasetSourceFormat = DatasetFormat | SpiderVariantFormat;

export const DATASET_SOURCE_FORMATS: readonly DatasetSourceFormat[] = ['spider', 'bird', 'minibench', 'spider-syn', 'spider-realistic', 'spider-dk'];

export interface ColumnSchema {
  name: string;
  type: string;
  primaryKey: boolean;
  references?: { table: string; column: string };
  description?: string;
  valueDescription?: string;
  sampleValues: Array<string | number>;
}

export interface TableSchema {
  name: string;
  columns: ColumnSchema[];
}

export interface DatabaseSchema {
  dbId: string;
  sqlitePath: string;
  tables: TableSchema[];
}

export type SpiderHardness = 'easy' | 'medium' | 'hard' | 'extra';
export type BirdDifficulty = 'simple' | 'moderate' | 'challenging';

export interface DatasetItem {
  /** Stable within the dataset version: `<split>-<index>` for Spider, `<split>-<question_id>` for BIRD/minibench. */
  id: string;
  split: 'train' | 'dev';
  dbId: string;
  question: string;
  evidence?: string;
  goldSql: string;
  difficulty?: BirdDifficulty;
  hardness?: SpiderHardness;
}

/** A non-fatal problem found while loading: the item (or file) is flagged, loading goes on. */
export interface DatasetProblem {
  file: string;
  item?: string;
  message: string;
}

/** Why an item's gold query cannot be scored against (see gold-check.ts). */
export type GoldFlagKind = 'error' | 'timeout' | 'refused' | 'truncated';

/** A per-item problem found by running the gold query: the item is kept, flagged, and left out of sweeps. */
export interface GoldFlag extends DatasetProblem {
  item: string;
  flag: GoldFlagKind;
}

/** A file a dataset is built from: its path in the version (POSIX, relative) and where it is on disk. */
export interface DatasetSourceFile {
  path: string;
  absPath: string;
}

export interface Dataset {
  format: DatasetFormat;
  /** The layout it was loaded from, when not `format` itself (a Spider variant). */
  sourceFormat?: SpiderVariantFormat;
  root: string;
  /**
   * The files the version is made of, when they are not simply every file under `root`: a Spider variant's
   * questions plus the Spider folder's schemas, databases and training questions, laid out as one Spider folder.
   */
  files?: DatasetSourceFile[];
  databases: DatabaseSchema[];
  items: DatasetItem[];
  problems: DatasetProblem[];
}
