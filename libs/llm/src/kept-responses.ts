import type { CacheEntry, CachedLlmResponse } from './response-cache';

/**
 * True for an error the database server sent about the data itself (a Postgres error, which carries `severity`,
 * whose SQLSTATE is outside the connection, shutdown, resource and rollback classes, e.g. 23xxx constraint or 42xxx
 * schema errors): putting it again cannot succeed. Anything else (ECONNREFUSED, EPIPE, a connection cut, 57P01 admin
 * shutdown, 57P03 starting up) may pass on a retry.
 */
export function isRefusedByStore(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown } | null;
  return typeof e?.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && !/^(08|40|53|57)/.test(e.code);
}

export interface KeptResponsesOptions {
  put(entry: CacheEntry): Promise<void>;
  /** Called once the response of `key` is kept no longer: stored, or refused by the store. */
  onDone(key: string): Promise<void> | void;
  log(obj: object): void;
  firstRetryMs?: number;
  maxRetryMs?: number;
}

interface Kept {
  entry: CacheEntry;
  attempts: number;
  timer?: NodeJS.Timeout;
}

/**
 * Paid responses whose cache put failed because the store was unreachable: kept in this process, keyed by cache key,
 * and put again with backoff until the store takes them. Until then a repeat of the call in this process (a retried
 * job) is answered from here, so nothing received is asked for again.
 */
export class KeptResponses {
  private readonly kept = new Map<string, Kept>();
  private readonly firstRetryMs: number;
  private readonly maxRetryMs: number;

  constructor(private readonly opts: KeptResponsesOptions) {
    this.firstRetryMs = opts.firstRetryMs ?? 250;
    this.maxRetryMs = opts.maxRetryMs ?? 2_000;
  }

  get(key: string): CachedLlmResponse | undefined {
    return this.kept.get(key)?.entry.response;
  }

  get size(): number {
    return this.kept.size;
  }

  keep(entry: CacheEntry, error: Error): void {
    if (this.kept.has(entry.key)) return;
    this.opts.log({ severity: 'warn', msg: 'llm response kept in memory: the cache store is unreachable; storing it again with backoff', key: entry.key, err: error.message });
    const kept: Kept = { entry, attempts: 0 };
    this.kept.set(entry.key, kept);
    this.schedule(kept);
  }

  /** Stops retrying after one last try for each kept response within `waitMs`; what is still kept then is lost. */
  async close(waitMs = 5_000): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (const k of this.kept.values()) clearTimeout(k.timer);
    while (this.kept.size > 0) {
      await Promise.all([...this.kept.values()].map((k) => this.attempt(k, false)));
      if (this.kept.size === 0 || Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, Math.min(this.firstRetryMs, Math.max(0, deadline - Date.now()))));
    }
    if (this.kept.size > 0) {
      this.opts.log({ severity: 'warn', msg: 'llm responses lost at shutdown: the cache store stayed unreachable', keys: [...this.kept.keys()] });
      this.kept.clear();
    }
  }

  private schedule(k: Kept): void {
    const delay = Math.min(this.maxRetryMs, this.firstRetryMs * 2 ** k.attempts);
    k.timer = setTimeout(() => void this.attempt(k, true), delay * (0.75 + Math.random() * 0.5));
    k.timer.unref();
  }

  private async attempt(k: Kept, reschedule: boolean): Promise<void> {
    k.timer = undefined;
    if (this.kept.get(k.entry.key) !== k) return;
    try {
      await this.opts.put(k.entry);
    } catch (err) {
      if (isRefusedByStore(err)) {
        this.kept.delete(k.entry.key);
        this.opts.log({ severity: 'warn', msg: 'llm response refused by the cache store: not kept any longer', key: k.entry.key, err: (err as Error).message });
        await this.opts.onDone(k.entry.key);
        return;
      }
      k.attempts++;
      if (reschedule) this.schedule(k);
      return;
    }
    this.kept.delete(k.entry.key);
    this.opts.log({ msg: 'llm response kept in memory is stored now', key: k.entry.key, attempts: k.attempts + 1 });
    await this.opts.onDone(k.entry.key);
  }
}
