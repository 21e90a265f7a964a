import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
// nx-ignore-next-line
import { testRedisUrl } from '@sqlsweep/testing';
import { ModelPauses } from './model-pauses';
import { RedisRateBudget } from './rate-budget';

const redisUrl = testRedisUrl();

describe('ModelPauses (real Redis)', () => {
  let redis: Redis;
  const prefix = `test-pauses-${randomUUID()}[1]*:llm-budget`; // glob characters in the prefix match only themselves
  beforeAll(() => {
    redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    const keys = await redis.keys(`test-pauses-*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it("lists the rate budget's quota pauses with their reasons and lifts one, so the budget admits calls again", async () => {
    const budget = new RedisRateBudget({ redis, keyPrefix: prefix });
    const other = new RedisRateBudget({ redis, keyPrefix: `${prefix}-other` });
    await budget.pause('gpt-x', 'quota exhausted at provider openai: insufficient_quota');
    await budget.pause('claude-y', 'quota exhausted at provider anthropic: credit balance is too low');
    await other.pause('elsewhere', 'not ours');
    const pauses = new ModelPauses(redis, prefix);

    expect(await pauses.list()).toEqual([
      { model: 'claude-y', reason: 'quota exhausted at provider anthropic: credit balance is too low' },
      { model: 'gpt-x', reason: 'quota exhausted at provider openai: insufficient_quota' },
    ]);
    expect(await pauses.resume('gpt-x')).toBe('quota exhausted at provider openai: insufficient_quota');
    expect(await budget.pausedReason('gpt-x')).toBeNull();
    expect(await pauses.resume('gpt-x')).toBeNull(); // not paused any more
    expect((await pauses.list()).map((p) => p.model)).toEqual(['claude-y']);
  });
});
