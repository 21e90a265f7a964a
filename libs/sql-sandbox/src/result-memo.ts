import { statSync } from 'node:fs';
import type { TimedExecutionResult } from './execution-result';
import { lexSql } from './sql-lexer';
import type { SqlValue } from './sql-value';

export interface ResultMemoLimits {
  /** Most results kept. */
  maxEntries: number;
  /** Most approximate bytes kept (rows, column names and keys), over all results. */
  maxBytes: number;
}

/**
 * The identity of one execution: the database file as it is now (device, inode, size, mtime in ns: a file rewritten
 * or renamed over under the same path gets another key), the SQL and the deadline. Undefined when the path cannot be
 * stat'ed (`:memory:`, a missing file): such requests are neither shared nor memoised.
 */
export function executionKey(dbPath: string, sql: string, deadlineMs: number): string | undefined {
  let file: string;
  try {
    const s = statSync(dbPath, { bigint: true });
    if (!s.isFile()) return undefined;
    file = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return undefined;
  }
  return `${deadlineMs}\u0000${file}\u0000${dbPath}\u0000${sql}`;
}

/** SQLite functions whose value is not fixed by the database file and the SQL text. */
const VOLATILE_WORDS = new Set(['random', 'randomblob', 'current_date', 'current_time', 'current_timestamp', 'changes', 'total_changes', 'last_insert_rowid']);
/** Date and time functions: the current moment with no argument or with 'now'. */
const DATE_FUNCTIONS = new Set(['date', 'time', 'datetime', 'julianday', 'unixepoch', 'strftime', 'timediff']);

/**
 * Whether running `sql` twice on the same file gives the same answer, so one run may stand for another: false when it
 * calls random()/randomblob(), reads the clock (CURRENT_DATE/TIME/TIMESTAMP, a date function with no argument, any
 * 'now' literal), or connection state (changes() and the like). Names quoted as identifiers are SQLite's names too.
 * Conservative by text; a 'now' stored in a column and passed to a date function is not seen.
 */
export function isDeterministicSql(sql: string): boolean {
  const tokens = lexSql(sql).filter((t) => t.kind !== 'space' && t.kind !== 'comment');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind !== 'word' && t.kind !== 'quoted' && t.kind !== 'string') continue;
    const name = (t.kind === 'word' ? t.text : t.text.slice(1, -1)).toLowerCase();
    if (name === 'now') return false; // also "now": a string once the DQS fallback reads it as one
    if (t.kind === 'string') continue;
    if (VOLATILE_WORDS.has(name)) return false;
    if (DATE_FUNCTIONS.has(name) && tokens[i + 1]?.text === '(' && tokens[i + 2]?.text === ')') return false;
  }
  return true;
}

/** SQLite errors that say more about the process or the moment (descriptors, memory, locks, I/O) than about the query. */
const TRANSIENT_ERROR = /^cannot open database |unable to open database file|database (table )?is locked|out of memory|disk I\/O error|interrupted/i;

/** Whether a result the child answered may stand for a later run: not a transient error (that run might succeed). */
export function isLasting(r: TimedExecutionResult): boolean {
  return !(r.status === 'error' && r.errorKind === 'runtime' && TRANSIENT_ERROR.test(r.message));
}

function valueBytes(v: SqlValue): number {
  if (v === null) return 8;
  if (typeof v === 'string') return 16 + v.length * 2;
  if (typeof v === 'number') return 8;
  return 48 + ('blob' in v ? v.blob.length : String(Object.values(v)[0]).length * 2);
}

/** Roughly what a result costs in the V8 heap; only ever compared with `maxBytes`. */
export function approxResultBytes(r: TimedExecutionResult): number {
  if (r.status === 'error') return 64 + r.message.length * 2;
  if (r.status === 'timeout') return 64;
  let n = 64 + r.columns.reduce((a, c) => a + 16 + c.length * 2, 0);
  for (const row of r.rows) {
    n += 32 + row.length * 8;
    for (const v of row) n += valueBytes(v);
  }
  return n;
}

/** A deep copy: what a caller gets can be changed freely without reaching the memo or another caller's copy. */
export function copyResult(r: TimedExecutionResult): TimedExecutionResult {
  const timings = r.timingsMs ? { timingsMs: [...r.timingsMs] } : {};
  if (r.status !== 'ok') return { ...r, ...timings };
  const rows = r.rows.map((row) => row.map((v) => (v !== null && typeof v === 'object' ? { ...v } : v))) as SqlValue[][];
  return { ...r, columns: [...r.columns], rows, ...timings };
}

/** Recent results by `executionKey`, least recently used dropped first, bounded by count and by approximate size. */
export class ResultMemo {
  private readonly entries = new Map<string, { result: TimedExecutionResult; bytes: number; expiresAt: number }>();
  private totalBytes = 0;
  /** Results dropped to stay within the limits (a result larger than `maxBytes` alone is never kept, nor counted). */
  evictions = 0;

  constructor(private readonly limits: ResultMemoLimits) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** The kept result itself (callers copy it before handing it out); a hit makes it the most recently used. */
  get(key: string): TimedExecutionResult | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (performance.now() >= e.expiresAt) {
      this.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.result;
  }

  /** Keeps `result`, which must not be reachable by any caller (a copy), for at most `ttlMs`. */
  set(key: string, result: TimedExecutionResult, ttlMs = Infinity): void {
    if (this.limits.maxEntries <= 0) return;
    const bytes = approxResultBytes(result) + key.length * 2;
    this.delete(key);
    if (bytes > this.limits.maxBytes) return;
    this.entries.set(key, { result, bytes, expiresAt: performance.now() + ttlMs });
    this.totalBytes += bytes;
    for (const [k] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.totalBytes <= this.limits.maxBytes) break;
      this.delete(k);
      this.evictions++;
    }
  }

  clear(): void {
    this.entries.clear();
    this.totalBytes = 0;
  }

  private delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.totalBytes -= e.bytes;
  }
}
