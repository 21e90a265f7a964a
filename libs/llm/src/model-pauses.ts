import { Cluster, type Redis } from 'ioredis';

/** A model whose work is stopped until someone resumes it (its provider said its quota or credit is spent). */
export interface ModelPause {
  model: string;
  reason: string;
}

/** The key prefix of the workers' shared rate budget (RedisRateBudget) for a queue prefix. */
export function llmBudgetPrefix(queuePrefix: string): string {
  return `${queuePrefix}:llm-budget`;
}

const GLOB_SPECIALS = /[*?[\]\\]/g;
const SUFFIX = '}:paused';

/**
 * The quota pauses of the shared rate budget, read and lifted from outside the workers (CLI, API). They are the keys
 * RedisRateBudget.pause writes (`<prefix>:{<model>}:paused`, holding the reason); a pause has no end of its own.
 */
export class ModelPauses {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
  ) {}

  private key(model: string): string {
    return `${this.prefix}:{${model}${SUFFIX}`;
  }

  /**
   * Every paused model with its reason, by name. Each model's keys hash to their own slot, so on a Redis Cluster every
   * primary is scanned and the reasons are read one key at a time (an MGET over several slots is refused there).
   */
  async list(): Promise<ModelPause[]> {
    const pattern = `${this.prefix.replace(GLOB_SPECIALS, '\\$&')}:{*${SUFFIX}`;
    const keys: string[] = [];
    for (const node of this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis]) {
      let cursor = '0';
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        keys.push(...found);
      } while (cursor !== '0');
    }
    if (keys.length === 0) return [];
    const reasons = this.redis instanceof Cluster ? await Promise.all(keys.map((k) => this.redis.get(k))) : await this.redis.mget(...keys);
    return keys
      .map((k, i) => ({ model: k.slice(this.prefix.length + 2, -SUFFIX.length), reason: reasons[i] }))
      .filter((p): p is ModelPause => p.reason !== null)
      .sort((a, b) => a.model.localeCompare(b.model));
  }

  /** Lifts a model's pause; its waiting jobs go on at their next check. Returns the reason it was paused for, or null when it was not. */
  async resume(model: string): Promise<string | null> {
    const [[, reason]] = (await this.redis.multi().get(this.key(model)).del(this.key(model)).exec()) as [[Error | null, string | null], unknown];
    return reason;
  }
}
