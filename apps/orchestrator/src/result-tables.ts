import type { ResultTableDto } from '@sqlsweep/contracts';
import { registerCommandFor, type ReplicaMaterializer } from '@sqlsweep/datasets';
import { officialSql, SandboxPool, type SqlValue } from '@sqlsweep/sql-sandbox';

/** An item's database as the API reads it; `file` is its path inside the dataset folder. */
export interface ItemDatabase {
  dbId: string; file: string | null; checksum: string | null; datasetName: string; contentHash: string; format: string; sourcePath: string;
}

/** Rows shown per table: enough to read a result, small enough for a page. */
export const RESULT_ROW_LIMIT = 100;
const DEADLINE_MS = 10_000;

/** SQLite values as JSON cells: big integers and blobs as strings, special reals by name. */
export function cell(v: SqlValue): string | number | null {
  if (v === null || typeof v === 'string' || typeof v === 'number') return v;
  if ('int' in v) return Number.isSafeInteger(Number(v.int)) ? Number(v.int) : v.int;
  if ('real' in v) return typeof v.real === 'number' ? v.real : v.real;
  return `x'${v.blob}'`;
}

/**
 * Runs an item's gold and predicted queries for display, read-only in sandbox children (one small pool, started on
 * first use), with the dataset's official SQL handling so the tables are the ones the verdict compared.
 */
export class ResultTableRunner {
  private pool?: SandboxPool;

  constructor(private readonly replicas?: ReplicaMaterializer) {}

  /** The item's replica in this process's data directory (made from the dataset store on first use), or why there is none. */
  async replica(db: ItemDatabase): Promise<{ path: string } | { missing: string }> {
    if (db.file === null || db.checksum === null || !this.replicas) return { missing: 'the database of this item has no replica' };
    try {
      return {
        path: await this.replicas.replica({
          dbId: db.dbId, sha256: db.checksum, file: db.file, version: `${db.datasetName}@${db.contentHash.slice(0, 12)}`,
          registerHint: registerCommandFor(db),
        }),
      };
    } catch (e) {
      return { missing: (e as Error).message };
    }
  }

  async table(db: { path: string } | { missing: string }, sql: string | null, format: 'spider' | 'bird' | 'minibench', which: 'gold' | 'pred'): Promise<ResultTableDto> {
    const empty = { columns: [], rows: [], rowCount: 0, truncated: false, elapsedMs: 0 };
    if (sql === null) return { sql, status: 'missing', message: 'no prediction', ...empty };
    if ('missing' in db) return { sql, status: 'missing', message: db.missing, ...empty };
    const dbPath = db.path;
    this.pool ??= new SandboxPool({ size: 1, deadlineMs: DEADLINE_MS, maxRows: 10_000, standby: false });
    const r = await this.pool.execute({ dbPath, sql: officialSql(format === 'spider' ? 'spider' : 'bird', which, sql), deadlineMs: DEADLINE_MS });
    if (r.status === 'ok') {
      return {
        sql, status: 'ok', columns: r.columns, rows: r.rows.slice(0, RESULT_ROW_LIMIT).map((row) => row.map(cell)),
        rowCount: r.rows.length, truncated: r.truncated || r.rows.length > RESULT_ROW_LIMIT, message: null, elapsedMs: r.elapsedMs,
      };
    }
    return { sql, status: r.status, message: r.status === 'error' ? r.message : `no result within ${DEADLINE_MS} ms`, ...empty, elapsedMs: r.elapsedMs };
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
