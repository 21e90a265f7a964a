import type { Dataset, DatasetItem } from '@sqlsweep/datasets';
import type { Encoder } from '../encoder/encoder';
import { buildSchemaIndexes } from '../retrievers/schema-indexes';
import { RB_SQL_DEFAULTS } from '@sqlsweep/contracts';
import { TableRetriever, type ScoredTable } from '../retrievers/table-retriever';
import { goldTablesOf } from './gold-tables';

/** What the evaluation reads of a dataset: a loaded folder, or a registered version read back from Postgres. */
export interface EvalDataset extends Pick<Dataset, 'format' | 'root' | 'databases'> {
  items: Array<Pick<DatasetItem, 'id' | 'split' | 'dbId' | 'question' | 'evidence' | 'goldSql'>>;
}

export interface TableRetrievalEvalOptions {
  dataset: EvalDataset;
  /** label stored in index manifests and in the report (e.g. the dataset content hash) */
  datasetVersion: string;
  encoder: Encoder;
  indexRoot: string;
  split?: 'dev' | 'train';
  /** θ values to report (RB-SQL Fig. 6 sweeps 11..16 for its BERT retriever) */
  thresholds: number[];
  /** top-k cut-offs to report besides thresholds */
  topKs?: number[];
  /** append BIRD's evidence to the question (the paper's BIRD setting) */
  withEvidence?: boolean;
  muPrime?: number;
  /** TR's large-table rule limit (default RB-SQL's 512) */
  maxTableTokens?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface RetrievalOperatingPoint {
  /** θ for threshold points, k for top-k points */
  value: number;
  /** gold tables retrieved / gold tables ("fine" recall in RB-SQL Fig. 6) */
  recall: number;
  /** items whose every gold table was retrieved / items ("coarse" recall) */
  itemRecall: number;
  /** non-gold tables filtered out / non-gold tables */
  reductionRatio: number;
  meanTablesKept: number;
}

export interface TableRetrievalEvalReport {
  dataset: { format: string; root: string; version: string; split: string };
  encoder: { name: string; fingerprint: string };
  withEvidence: boolean;
  items: number;
  /** items whose gold SQL named no schema table (skipped) */
  skippedItems: string[];
  goldTablesFromFallbackTokenizer: number;
  meanTablesPerDatabase: number;
  /** items whose best-scored table is a gold table */
  firstIsGold: number;
  thresholds: RetrievalOperatingPoint[];
  topK: RetrievalOperatingPoint[];
  createdAt: string;
}

interface ScoredItem {
  gold: Set<string>;
  tableCount: number;
  scored: ScoredTable[];
}

function operatingPoint(value: number, items: ScoredItem[], keep: (item: ScoredItem) => ScoredTable[]): RetrievalOperatingPoint {
  let goldTotal = 0;
  let goldFound = 0;
  let allFound = 0;
  let nonGold = 0;
  let nonGoldRemoved = 0;
  let kept = 0;
  for (const item of items) {
    const keptTables = new Set(keep(item).map((t) => t.table));
    const found = [...item.gold].filter((t) => keptTables.has(t)).length;
    goldTotal += item.gold.size;
    goldFound += found;
    if (found === item.gold.size) allFound++;
    const nonGoldHere = item.tableCount - item.gold.size;
    nonGold += nonGoldHere;
    nonGoldRemoved += nonGoldHere - [...keptTables].filter((t) => !item.gold.has(t)).length;
    kept += keptTables.size;
  }
  const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
  return {
    value,
    recall: ratio(goldFound, goldTotal),
    itemRecall: ratio(allFound, items.length),
    reductionRatio: ratio(nonGoldRemoved, nonGold),
    meanTablesKept: items.length ? kept / items.length : 0,
  };
}

/** Table-retrieval recall and reduction ratio over a dataset split, at several θ and top-k (RB-SQL Fig. 6a). */
export async function evaluateTableRetrieval(options: TableRetrievalEvalOptions): Promise<TableRetrievalEvalReport> {
  const split = options.split ?? 'dev';
  const items = options.dataset.items.filter((item) => item.split === split);
  const databases = new Map(options.dataset.databases.map((db) => [db.dbId, db]));
  const retrievers = new Map<string, TableRetriever>();
  const scoredItems: ScoredItem[] = [];
  const skippedItems: string[] = [];
  let fallback = 0;
  for (const [i, item] of items.entries()) {
    const database = databases.get(item.dbId);
    if (!database) {
      skippedItems.push(item.id);
      continue;
    }
    let retriever = retrievers.get(item.dbId);
    if (!retriever) {
      const { indexes } = await buildSchemaIndexes(database, { encoder: options.encoder, indexRoot: options.indexRoot, datasetVersion: options.datasetVersion });
      retriever = new TableRetriever(options.encoder, database, indexes, options.maxTableTokens === undefined ? {} : { maxTableTokens: options.maxTableTokens });
      retrievers.set(item.dbId, retriever);
    }
    const gold = goldTablesOf(item.goldSql, database.tables.map((t) => t.name));
    if (gold.tables.length === 0) {
      skippedItems.push(item.id);
      continue;
    }
    if (gold.source === 'tokens') fallback++;
    const question = options.withEvidence && item.evidence ? `${item.question} ${item.evidence}` : item.question;
    scoredItems.push({ gold: new Set(gold.tables), tableCount: database.tables.length, scored: await retriever.scoreTables(question, options.muPrime ?? RB_SQL_DEFAULTS.muPrime) });
    options.onProgress?.(i + 1, items.length);
  }
  const usedDbs = [...new Set(items.map((i) => i.dbId))].map((id) => databases.get(id)).filter((db) => db !== undefined);
  return {
    dataset: { format: options.dataset.format, root: options.dataset.root, version: options.datasetVersion, split },
    encoder: { name: options.encoder.config.name, fingerprint: options.encoder.fingerprint },
    withEvidence: options.withEvidence ?? false,
    items: scoredItems.length,
    skippedItems,
    goldTablesFromFallbackTokenizer: fallback,
    meanTablesPerDatabase: usedDbs.length ? usedDbs.reduce((s, db) => s + db.tables.length, 0) / usedDbs.length : 0,
    firstIsGold: scoredItems.length ? scoredItems.filter((item) => item.scored.length > 0 && item.gold.has(item.scored[0].table)).length / scoredItems.length : 0,
    thresholds: options.thresholds.map((theta) => operatingPoint(theta, scoredItems, (item) => item.scored.filter((t) => t.score > theta))),
    topK: (options.topKs ?? [1, 2, 3, 5]).map((k) => operatingPoint(k, scoredItems, (item) => item.scored.slice(0, k))),
    createdAt: new Date().toISOString(),
  };
}
