import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * Queue key prefixes of tests and benchmarks: `sqlsweep_test_<run>_<random>`. A run tag is the run's start in
 * seconds since the epoch (base 36) and a random suffix; Jest's global set-up puts one in SQLSWEEP_TEST_RUN, which
 * every test worker inherits, so that the global teardown can remove all of the run's keys, and a later run those
 * of runs that died before their teardown.
 */
const root = 'sqlsweep_test_';
const tagged = /^sqlsweep_test_([0-9a-z]+)-[0-9a-f]+_[0-9a-f]+$/;

export function newTestRun(now = Date.now()): string {
  return `${Math.floor(now / 1000).toString(36)}-${randomBytes(2).toString('hex')}`;
}

/** A BullMQ key prefix no other test file shares, under this process's test run (a new one when there is none). */
export function testQueuePrefix(run = (process.env.SQLSWEEP_TEST_RUN ??= newTestRun())): string {
  return `${root}${run}_${randomBytes(5).toString('hex')}`;
}

/**
 * Removes the Redis keys of test run `run`, of runs started more than `staleAfterMs` ago, and of prefixes from before
 * run tags (which no live run uses). Keys of other recent runs, which may be going on now, stay. Returns how many
 * keys went.
 */
export async function removeTestQueueKeys(redisUrl: string, opts: { run: string; staleAfterMs?: number; now?: number }): Promise<number> {
  const cutoff = Math.floor(((opts.now ?? Date.now()) - (opts.staleAfterMs ?? 24 * 3600_000)) / 1000);
  const doomed = (key: string) => {
    const colon = key.indexOf(':');
    const prefix = colon < 0 ? key : key.slice(0, colon);
    const m = tagged.exec(prefix);
    if (!m) return true;
    return prefix.startsWith(`${root}${opts.run}_`) || parseInt(m[1], 36) < cutoff;
  };
  return unlinkMatching(redisUrl, `${root}*`, doomed);
}

/** Removes the Redis keys of one queue prefix (BullMQ names them `<prefix>:<queue>:…`). Returns how many went. */
export async function removeQueuePrefixKeys(redisUrl: string, prefix: string): Promise<number> {
  return unlinkMatching(redisUrl, `${prefix}:*`, () => true);
}

async function unlinkMatching(redisUrl: string, pattern: string, doomed: (key: string) => boolean): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  let removed = 0;
  try {
    for await (const keys of redis.scanStream({ match: pattern, count: 1000 }) as AsyncIterable<string[]>) {
      const gone = keys.filter(doomed);
      if (gone.length) removed += await redis.unlink(...gone);
    }
  } finally {
    redis.disconnect();
  }
  return removed;
}
