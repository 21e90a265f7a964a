import { evaluateGold, SandboxPool, type ExecutionResult, type GoldResultStore } from '@sqlsweep/sql-sandbox';
import type { Dataset, DatasetItem, GoldFlag, GoldFlagKind } from './types';

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

/** Why a gold result cannot be scored against, or undefined when it can (registration and sweeps both ask). */
export function goldFlagOf(result: ExecutionResult): { flag: GoldFlagKind; message: string } | undefined {
  if (result.status === 'timeout') return { flag: 'timeout', message: `gold SQL timed out after ${Math.round(result.elapsedMs)} ms` };
  if (result.status === 'error' && result.errorKind === 'gate') return { flag: 'refused', message: `gold SQL refused by the sandbox: ${result.message}` };
  if (result.status === 'error') return { flag: 'error', message: `gold SQL fails (${result.errorKind}): ${result.message}` };
  if (result.truncated) return { flag: 'truncated', message: `gold SQL returns more than the sandbox keeps (${result.rows.length} rows kept); its result is cut` };
  return undefined;
}

/**
 * Runs every gold query whose database is present (with the official pre-execution rewrites of the dataset's
 * semantics) in the sandbox, under the pool's limits, and flags each one that fails, times out, is refused by the
 * statement gate or is truncated: no prediction can be scored against such a gold result.
 */
export async function checkGoldExecution(opts: CheckGoldOptions): Promise<GoldFlag[]> {
  const paths = new Map(opts.dataset.databases.map((d) => [d.dbId, opts.replicas?.get(d.dbId) ?? d.sqlitePath]));
  const runnable = opts.dataset.items.filter((item) => paths.has(item.dbId));
  // Each result is reduced to its flag as it arrives: a dataset's gold rows never all sit in memory at once.
  const found = await Promise.all(
    runnable.map(async (item) => {
      const { result } = await evaluateGold({
        semantics: opts.dataset.format === 'spider' ? 'spider' : 'bird',
        pool: opts.pool,
        item: { dbPath: paths.get(item.dbId)!, goldSql: item.goldSql, itemId: item.id },
        goldCache: opts.goldCache,
        versionHash: opts.versionHash,
        deadlineMs: opts.deadlineMs,
      });
      const flag = goldFlagOf(result);
      return flag ? { file: itemFile(opts.dataset, item), item: item.id, ...flag } : undefined;
    }),
  );
  return found.filter((f): f is GoldFlag => f !== undefined);
}

/** The sandbox gold queries run in at registration: the sizes and deadline sweeps' workers use. */
export interface GoldCheckSandbox { size?: number; deadlineMs?: number }

/** `checkGoldExecution` in a sandbox pool of its own, closed afterwards. */
export async function checkGoldInSandbox(opts: Omit<CheckGoldOptions, 'pool'> & { sandbox?: GoldCheckSandbox }): Promise<GoldFlag[]> {
  const pool = new SandboxPool({ size: opts.sandbox?.size, deadlineMs: opts.sandbox?.deadlineMs, standby: false });
  try {
    return await checkGoldExecution({ ...opts, pool });
  } finally {
    await pool.close();
  }
}
