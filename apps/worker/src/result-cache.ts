import { LruCache } from '@sqlsweep/config';

/**
 * Stage outputs this worker has read, by key, the least recently read dropped first once they take more than
 * `maxBytes` as stored. An output never changes under its key (keys are content hashes; a later write only changes
 * accounting), so a cached one is never stale. Outputs are frozen, deeply, when cached: every stage that reads one
 * gets the same object. The stages that read a whole training set read the same hundreds of outputs for every
 * evaluated item of a variant.
 */
export class ResultCache {
  private readonly outputs: LruCache<unknown>;

  constructor(maxBytes: number) {
    this.outputs = new LruCache(maxBytes);
  }

  /** The output stored under `key`, if cached (it becomes the most recently read). */
  get(key: string): { output: unknown } | undefined {
    const output = this.outputs.get(key);
    return output === undefined ? undefined : { output };
  }

  /** Caches `output` read under `key`; `bytes`: its size as stored, what the bound counts. */
  set(key: string, output: unknown, bytes: number): void {
    this.outputs.set(key, deepFreeze(output), bytes);
  }

  get stats(): { entries: number; bytes: number } {
    const { entries, bytes } = this.outputs.stats;
    return { entries, bytes };
  }
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
