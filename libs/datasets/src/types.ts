export type DatasetFormat = 'spider' | 'bird' | 'minibench';

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

export interface Dataset {
  format: DatasetFormat;
  root: string;
  databases: DatabaseSchema[];
  items: DatasetItem[];
  problems: DatasetProblem[];
}
