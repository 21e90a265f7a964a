import { Redis } from 'ioredis';
import { testRedisUrl } from './test-core';
import { newTestRun, removeQueuePrefixKeys, removeTestQueueKeys, testQueuePrefix } from './test-queues';

const redisUrl = testRedisUrl();

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

  it('of one prefix go together, and only those', async () => {
    const [mine, other] = [testQueuePrefix(), testQueuePrefix()];
    await redis.set(`${mine}:stage-sql:1`, '1');
    await redis.set(`${mine}:stage-llm:meta`, '1');
    await redis.set(`${other}:stage-sql:1`, '1');
    expect(await removeQueuePrefixKeys(redisUrl, mine)).toBe(2);
    expect(await redis.exists(`${mine}:stage-sql:1`, `${mine}:stage-llm:meta`)).toBe(0);
    expect(await redis.exists(`${other}:stage-sql:1`)).toBe(1);
    await redis.del(`${other}:stage-sql:1`);
  });

  it('share the run of the process they are made in', () => {
    const run = process.env.SQLSWEEP_TEST_RUN;
    expect(run).toMatch(/^[0-9a-z]+-[0-9a-f]{4}$/);
    expect(testQueuePrefix().startsWith(`sqlsweep_test_${run}_`)).toBe(true);
    expect(testQueuePrefix()).not.toBe(testQueuePrefix());
  });
});
