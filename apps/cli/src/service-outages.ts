import { isUnreachableError } from '@sqlsweep/db';
import { newRedisClient } from '@sqlsweep/queue';
import { ServiceUnreachableError, type Service } from './service-unreachable';

export { ServiceUnreachableError, type Service } from './service-unreachable';

/** A short reason for the outage line: the error's code, else its message. */
export function unreachableReason(e: unknown): string {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code !== '' ? code : (e as Error)?.message ?? String(e);
}

/**
 * Which services are down, since when: says one line when one goes down and one when it is back, and fails `gaveUp`
 * once one has been down for longer than `limitMs`. A command races its work against `gaveUp`, so a call that
 * waits on a server which never comes back (ioredis queues commands until it reconnects) still ends.
 */
export class ServiceOutages {
  private readonly down = new Map<Service, { since: number; reason: string; timer: NodeJS.Timeout }>();
  private giveUp!: (e: ServiceUnreachableError) => void;
  private failure?: ServiceUnreachableError;
  readonly gaveUp: Promise<never>;

  constructor(readonly limitMs: number, private readonly say: (line: string) => void) {
    this.gaveUp = new Promise<never>((_, reject) => { this.giveUp = reject; });
    this.gaveUp.catch(() => undefined); // observed by whoever races it; never an unhandled rejection
  }

  /** The error that ended the wait, once one service has been down too long. */
  get expired(): ServiceUnreachableError | undefined { return this.failure; }

  /** Says so the first time; while the service stays down, only keeps the latest reason (for the give-up message). */
  markDown(service: Service, reason: string): void {
    const outage = this.down.get(service);
    if (outage) outage.reason = reason;
    if (outage || this.failure) return;
    this.say(`${service} unreachable (${reason}): retrying for up to ${Math.round(this.limitMs / 1000)} s`);
    const since = Date.now();
    const timer = setTimeout(() => {
      this.failure = new ServiceUnreachableError(service, Date.now() - since, this.down.get(service)?.reason ?? reason);
      this.giveUp(this.failure);
    }, this.limitMs);
    timer.unref();
    this.down.set(service, { since, reason, timer });
  }

  markUp(service: Service): void {
    const outage = this.down.get(service);
    if (!outage) return;
    clearTimeout(outage.timer);
    this.down.delete(service);
    this.say(`${service} reachable again after ${((Date.now() - outage.since) / 1000).toFixed(1)} s`);
  }

  /** Stops the timers (the command is ending). */
  dispose(): void {
    for (const outage of this.down.values()) clearTimeout(outage.timer);
    this.down.clear();
  }
}

const backoffMs = (attempt: number) => Math.min(250 * 2 ** attempt, 5_000);

/**
 * Runs `work`, and again with backoff while it fails because `service` is unreachable, until it succeeds or the
 * outage has lasted longer than the outages' limit. Only for work that is safe to repeat (reads, idempotent writes).
 */
export async function retryWhileUnreachable<T>(outages: ServiceOutages, service: Service, work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      const result = await work();
      outages.markUp(service);
      return result;
    } catch (e) {
      if (!isUnreachableError(e)) throw e;
      outages.markDown(service, unreachableReason(e));
      if (outages.expired) throw outages.expired;
      await new Promise((r) => setTimeout(r, backoffMs(attempt)));
      if (outages.expired) throw outages.expired;
    }
  }
}

/**
 * Watches Redis on a connection of its own: BullMQ's connections wait out an outage silently (every command is held
 * until Redis is back), so this is what tells the user, and what gives up, when Redis is gone.
 */
export function watchRedis(redisUrl: string, outages: ServiceOutages): { close(): void } {
  const redis = newRedisClient(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false, retryStrategy: (n) => Math.min(250 * n, 2_000) });
  redis.on('error', (e: Error) => {
    if (redis.status === 'ready') return;
    outages.markDown('redis', unreachableReason(e));
  });
  redis.on('ready', () => outages.markUp('redis'));
  return { close: () => redis.disconnect() };
}
