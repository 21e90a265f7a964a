import { Redis } from 'ioredis';
import { newTestRun, removeTestQueueKeys, testQueuePrefix } from './test-queues';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('test queue keys', () => {
  const redis = new Redis(redisUrl);
  afterAll(() => redis.disconnect());

  it('go with their run, and with runs over a day old; other recent runs keep theirs', async () => {
    const now = Date.now();
    const finished = newTestRun(now);
    const concurrent = newTestRun(now - 3_600_000);
    const abandoned = newTestRun(now - 2 * 24 * 3_600_000);
    const keys = {
      finished: [`${testQueuePrefix(finished)}:stage-sql:1`, `${testQueuePrefix(finished)}:stage-llm:meta`],
      concurrent: [`${testQueuePrefix(concurrent)}:stage-sql:1`],
      abandoned: [`${testQueuePrefix(abandoned)}:stage-sql:1`],
      untagged: ['sqlsweep_test_0a1b2c3d4e:stage-sql:1'],
    };
    for (const key of Object.values(keys).flat()) await redis.set(key, '1');

    expect(await removeTestQueueKeys(redisUrl, { run: finished, now })).toBeGreaterThanOrEqual(4);

    const left = async (ks: string[]) => Number(await redis.exists(...ks));
    expect(await left(keys.finished)).toBe(0);
    expect(await left(keys.abandoned)).toBe(0);
    expect(await left(keys.untagged)).toBe(0);
    expect(await left(keys.concurrent)).toBe(1);
    await redis.del(...keys.concurrent);
  });

  it('share the run of the process they are made in', () => {
    const run = process.env.SQLSWEEP_TEST_RUN;
    expect(run).toMatch(/^[0-9a-z]+-[0-9a-f]{4}$/);
    expect(testQueuePrefix().startsWith(`sqlsweep_test_${run}_`)).toBe(true);
    expect(testQueuePrefix()).not.toBe(testQueuePrefix());
  });
});
