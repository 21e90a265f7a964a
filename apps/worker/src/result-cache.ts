/**
 * Stage outputs this worker has read, by key, the least recently read dropped first once they take more than
 * `maxBytes` as stored. An output never changes under its key (keys are content hashes; a later write only changes
 * accounting), so a cached one is never stale. Outputs are frozen, deeply, when cached: every stage that reads one
 * gets the same object. The stages that read a whole training set read the same hundreds of outputs for every
 * evaluated item of a variant.
 */
export class ResultCache {
  private readonly entries = new Map<string, { output: unknown; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The output stored under `key`, if cached (it becomes the most recently read). */
  get(key: string): { output: unknown } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { output: entry.output };
  }

  /** Caches `output` read under `key`; `bytes`: its size as stored, what the bound counts. */
  set(key: string, output: unknown, bytes: number): void {
    if (bytes > this.maxBytes) return;
    const seen = this.entries.get(key);
    if (seen) {
      this.entries.delete(key);
      this.bytes -= seen.bytes;
    }
    this.entries.set(key, { output: deepFreeze(output), bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  get stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
