import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
// nx-ignore-next-line
import { testRedisUrl } from '@sqlsweep/testing';
import { LlmError } from './errors';
import type { BudgetLimits } from './rate-accounting';
import { RedisRateBudget, type BudgetRequest } from './rate-budget';

const redisUrl = testRedisUrl();

describe('RedisRateBudget (real Redis)', () => {
  const connections: Redis[] = [];
  let prefix: string;

  const budget = (opts: { burstSeconds?: number; maxWaitMs?: number; headroom?: number } = {}) => {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    connections.push(redis);
    return new RedisRateBudget({ redis, keyPrefix: prefix, burstSeconds: 1, maxWaitMs: 10_000, ...opts });
  };
  const request = (limits: BudgetLimits, extra: Partial<BudgetRequest> = {}): BudgetRequest => ({
    model: 'm',
    limits,
    inputTokens: 10,
    outputTokens: 10,
    priority: 'nightly',
    leaseMs: 30_000,
    ...extra,
  });
  const roomy = { rpm: 1e6, inputTpm: 1e9, outputTpm: 1e9, concurrency: 1000 };

  beforeEach(() => {
    prefix = `test:llm-budget:${randomUUID()}`;
  });
  afterAll(async () => {
    const cleaner = connections[0];
    if (cleaner) {
      const keys = await cleaner.keys('test:llm-budget:*');
      if (keys.length) await cleaner.del(...keys);
    }
    await Promise.all(connections.map((c) => c.quit()));
  });

  it('shares the requests-per-minute budget between separate clients', async () => {
    const a = budget();
    const b = budget();
    const limits = { ...roomy, rpm: 600 }; // 10/s; capacity 1 s = 9.8 with 2 % headroom
    const started = Date.now();
    const grants: number[] = [];
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const lease = await (i % 2 ? a : b).acquire(request(limits));
        grants.push(Date.now() - started);
        await (i % 2 ? a : b).settle(lease, { inputTokens: 10, outputTokens: 10 });
      }),
    );
    grants.sort((x, y) => x - y);
    expect(grants.filter((t) => t < 300).length).toBeLessThanOrEqual(12);
    // 30 requests at 9.8/s after a burst of 9: at least ~2.1 s, whichever process asks.
    expect(grants.at(-1)!).toBeGreaterThanOrEqual(1_900);
  });

  it('limits input tokens, gives up after maxWaitMs with the wait to reschedule, and refunds on settle', async () => {
    const b = budget({ maxWaitMs: 200 });
    const limits = { ...roomy, inputTpm: 60_000 }; // capacity 980 tokens, 980/s
    const lease = await b.acquire(request(limits, { inputTokens: 900 }));
    const refused = (await b.acquire(request(limits, { inputTokens: 900 })).catch((e: unknown) => e)) as LlmError;
    expect(refused).toBeInstanceOf(LlmError);
    expect(refused.code).toBe('rate_limited');
    expect(refused.retryAfterMs).toBeGreaterThan(600);
    // The provider counted only 50 tokens: the rest goes back at once.
    await b.settle(lease, { inputTokens: 50, outputTokens: 10 });
    const again = await b.acquire(request(limits, { inputTokens: 800 }));
    // Without the refund, 800 more tokens would need about 0.5 s of refill, past maxWaitMs: refused. With it, granted
    // at once; the bound leaves room for a loaded machine's Redis round trips.
    expect(again.waitedMs).toBeLessThan(400);
  });

  it('blocks every client for a Retry-After, and pauses a model whose quota is exhausted', async () => {
    const a = budget({ maxWaitMs: 100 });
    const b = budget({ maxWaitMs: 100 });
    await a.blockFor('m', 5_000);
    const blocked = (await b.acquire(request(roomy)).catch((e: unknown) => e)) as LlmError;
    expect(blocked.code).toBe('rate_limited');
    expect(blocked.retryAfterMs).toBeGreaterThan(4_000);

    await a.pause('other', 'quota exhausted at provider openai: insufficient_quota');
    const paused = (await b.acquire(request(roomy, { model: 'other' })).catch((e: unknown) => e)) as LlmError;
    expect(paused.code).toBe('quota_exhausted');
    expect(paused.message).toContain('insufficient_quota');
    await a.resume('other');
    await expect(b.acquire(request(roomy, { model: 'other' }))).resolves.toMatchObject({ model: 'other' });
  });

  it('caps concurrency across clients until a lease is settled', async () => {
    const a = budget();
    const b = budget();
    const limits = { ...roomy, concurrency: 2 };
    const first = await a.acquire(request(limits));
    await b.acquire(request(limits));
    let thirdGranted = false;
    const third = a.acquire(request(limits)).then((l) => {
      thirdGranted = true;
      return l;
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(thirdGranted).toBe(false);
    await a.settle(first, { inputTokens: 10, outputTokens: 10 });
    await third;
    expect(thirdGranted).toBe(true);
  });

  it('serves interactive callers ahead of nightly ones under the same budget', async () => {
    const nightlyClient = budget();
    const interactiveClient = budget();
    const limits = { ...roomy, rpm: 120 }; // 2/s, capacity 1.96
    await nightlyClient.acquire(request(limits));
    await nightlyClient.acquire(request(limits)); // the bucket is now empty: the next grant is ~0.5 s away
    const order: string[] = [];
    const nightly = Array.from({ length: 3 }, () => nightlyClient.acquire(request(limits)).then(() => order.push('nightly')));
    await new Promise((r) => setTimeout(r, 30));
    const interactive = interactiveClient.acquire(request(limits, { priority: 'interactive' })).then(() => order.push('interactive'));
    await Promise.all([...nightly, interactive]);
    expect(order[0]).toBe('interactive');
  });

  it('lowers the budget to what the provider reports as remaining', async () => {
    const b = budget({ maxWaitMs: 100 });
    const limits = { ...roomy, rpm: 120 }; // capacity 1.96 requests: one left after the first
    await b.acquire(request(limits));
    await b.observe('m', limits, { remainingRequests: 0 });
    const refused = (await b.acquire(request(limits)).catch((e: unknown) => e)) as LlmError;
    expect(refused.code).toBe('rate_limited');
  });
});
