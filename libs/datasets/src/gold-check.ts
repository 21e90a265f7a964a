import { evaluateGold, type GoldResultStore, type SandboxPool } from '@sqlsweep/sql-sandbox';
import type { Dataset, DatasetItem, DatasetProblem } from './types';

export interface CheckGoldOptions {
  dataset: Dataset;
  pool: SandboxPool;
  /** dbId -> database path to run on (the read-only replicas); default: each database's own sqlitePath. */
  replicas?: Map<string, string>;
  /** With versionHash, every gold result is stored here, so later sweeps never run a gold query again. */
  goldCache?: GoldResultStore;
  versionHash?: string;
  deadlineMs?: number;
}

function itemFile(dataset: Dataset, item: DatasetItem): string {
  if (item.split === 'dev') return 'dev.json';
  return dataset.format === 'spider' ? 'train_spider.json' : 'train.json';
}

/**
 * Runs every gold query whose database is present (with the official pre-execution rewrites of the dataset's
 * semantics) and reports each one that fails or times out as a per-item problem.
 */
export async function checkGoldExecution(opts: CheckGoldOptions): Promise<DatasetProblem[]> {
  const paths = new Map(opts.dataset.databases.map((d) => [d.dbId, opts.replicas?.get(d.dbId) ?? d.sqlitePath]));
  const runnable = opts.dataset.items.filter((item) => paths.has(item.dbId));
  const results = await Promise.all(
    runnable.map((item) =>
      evaluateGold({
        semantics: opts.dataset.format === 'spider' ? 'spider' : 'bird',
        pool: opts.pool,
        item: { dbPath: paths.get(item.dbId)!, goldSql: item.goldSql, itemId: item.id },
        goldCache: opts.goldCache,
        versionHash: opts.versionHash,
        deadlineMs: opts.deadlineMs,
      }),
    ),
  );
  const problems: DatasetProblem[] = [];
  results.forEach(({ result }, i) => {
    const item = runnable[i];
    if (result.status === 'error') problems.push({ file: itemFile(opts.dataset, item), item: item.id, message: `gold SQL fails (${result.errorKind}): ${result.message}` });
    if (result.status === 'timeout') problems.push({ file: itemFile(opts.dataset, item), item: item.id, message: `gold SQL timed out after ${Math.round(result.elapsedMs)} ms` });
  });
  return problems;
}
