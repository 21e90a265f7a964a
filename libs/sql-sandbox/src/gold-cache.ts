import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { ExecutionResult } from './execution-result';

export interface GoldCacheEntry {
  result: ExecutionResult;
  /** Where the gold timing was measured (`os.cpus()[0].model`, cores), since timings only compare on one machine. */
  machine: string;
  /** Repeated gold timings for VES, measured on `machine`. */
  timingsMs?: number[];
}

/** Where gold results live between runs: keyed by (dataset version, item id). Postgres can implement this too. */
export interface GoldResultStore {
  get(versionHash: string, itemId: string): GoldCacheEntry | undefined;
  set(versionHash: string, itemId: string, entry: GoldCacheEntry): void;
}

const keyOf = (versionHash: string, itemId: string): string => `${versionHash}\u0000${itemId}`;

/** In-memory gold cache, optionally persisted as an append-only JSON-lines file. */
export class GoldCache implements GoldResultStore {
  private readonly entries = new Map<string, GoldCacheEntry>();

  constructor(private readonly file?: string) {
    if (file && existsSync(file)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim().length > 0)
        .forEach((line, i) => {
          let parsed: { versionHash: string; itemId: string; entry: GoldCacheEntry };
          try {
            parsed = JSON.parse(line) as typeof parsed;
          } catch (err) {
            throw new Error(`${file}: line ${i + 1} is not valid JSON: ${(err as Error).message}`);
          }
          this.entries.set(keyOf(parsed.versionHash, parsed.itemId), parsed.entry);
        });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(versionHash: string, itemId: string): GoldCacheEntry | undefined {
    return this.entries.get(keyOf(versionHash, itemId));
  }

  set(versionHash: string, itemId: string, entry: GoldCacheEntry): void {
    this.entries.set(keyOf(versionHash, itemId), entry);
    if (this.file) appendFileSync(this.file, `${JSON.stringify({ versionHash, itemId, entry })}\n`);
  }
}
