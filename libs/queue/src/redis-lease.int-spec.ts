import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
// Test helpers build on queue; this spec-only import must not make the project graph circular.
// nx-ignore-next-line
import { hasRedisServer, startOwnRedis, type OwnRedis } from '@sqlsweep/testing';
import { RedisLease } from './redis-lease';

const maybe = hasRedisServer ? it : it.skip;

/** RedisLease's scripts on a redis-server of the test's own: SCRIPT FLUSH must never touch the machine's shared one. */
describe('RedisLease (a Redis of its own)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'redis-lease-'));
  let own: OwnRedis | undefined;
  let url: string;
  let admin: Redis;

  beforeAll(async () => {
    if (!hasRedisServer) return;
    own = await startOwnRedis(dir);
    url = own.url;
    admin = new Redis(url);
  }, 30_000);

  afterAll(async () => {
    admin?.disconnect();
    await own?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const evalshaCalls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);

  maybe('holds, renews by SHA, survives SCRIPT FLUSH, and releases to the next owner', async () => {
    const a = new RedisLease(url, 'lease', 5_000);
    const b = new RedisLease(url, 'lease', 5_000);
    try {
      expect(await a.hold()).toBe(true); // the connection's first run: the text (EVAL)
      expect(await b.hold()).toBe(false);
      const before = await evalshaCalls();
      expect(await a.hold()).toBe(true); // renewed by SHA
      expect(await evalshaCalls()).toBe(before + 1);

      expect(await admin.call('SCRIPT', 'FLUSH')).toBe('OK');
      expect(await a.hold()).toBe(true); // NOSCRIPT, then the text again
      expect(await b.hold()).toBe(false);
      expect(await admin.pttl('lease')).toBeGreaterThan(4_000);

      await a.close(); // releases
      expect(await admin.exists('lease')).toBe(0);
      expect(await b.hold()).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
