import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
// nx-ignore-next-line
import { freeLocalPort, hasRedisServer, startOwnRedis, startSimulator, testRedisUrl, type OwnRedis, type Simulator } from '@sqlsweep/testing';
import { LlmClient } from './llm-client';
import { parseModelCatalog } from './model-catalog';
import { ModelCallers } from './model-callers';
import type { RateLimitObservation } from './providers/provider';
import type { BudgetLimits } from './rate-accounting';
import { RedisRateBudget, type BudgetLease, type BudgetSettlement } from './rate-budget';

const redisUrl = testRedisUrl();
const questions = (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'data', 'minibench', 'dist', 'dev.json'), 'utf8')) as { question: string }[]).map((q) => q.question);
const limits: BudgetLimits = { rpm: 600, inputTpm: 600_000, outputTpm: 60_000, concurrency: 10 };

/** Records every command sent on `redis` (its name read when asked: ioredis turns EVALSHA into EVAL on a socket's first use). */
function recordCommands(redis: Redis): { names: () => string[]; clear: () => void } {
  const sent: { name: string }[] = [];
  const original = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    sent.push(command);
    return (original as (...a: unknown[]) => unknown)(command, ...rest);
  }) as typeof redis.sendCommand;
  return { names: () => sent.map((c) => c.name), clear: () => void sent.splice(0) };
}

describe('RedisRateBudget scripts: sent by SHA, settle and observe in one call', () => {
  const connections: Redis[] = [];
  const prefixes: string[] = [];
  const connect = (url = redisUrl) => {
    const redis = new Redis(url, { maxRetriesPerRequest: null });
    connections.push(redis);
    return redis;
  };
  const newPrefix = () => {
    const p = `test:llm-budget-scripts:${randomUUID()}`;
    prefixes.push(p);
    return p;
  };

  afterAll(async () => {
    const cleaner = connections[0];
    for (const p of prefixes) {
      const keys = cleaner ? await cleaner.keys(`${p}:*`) : [];
      if (keys.length) await cleaner!.del(...keys);
    }
    for (const c of connections) c.disconnect();
  });

  describe('one paid call through LlmClient (real simulator)', () => {
    let sim: Simulator;
    let client: LlmClient;
    let recorder: ReturnType<typeof recordCommands>;
    let budget: RedisRateBudget;
    let n = 0;
    const dir = mkdtempSync(join(tmpdir(), 'budget-scripts-sim-'));

    beforeAll(async () => {
      const simConfig = join(dir, 'llm-sim.yaml');
      writeFileSync(simConfig, ['models:', '  m: { accuracy: 1, rpm: 1000000, tpm: 1000000000, outputTpm: 1000000000, latencyMs: { median: 5, p95: 5 }, serverErrorRate: 0 }'].join('\n'));
      sim = await startSimulator({ config: simConfig });
      const redis = connect();
      await redis.ping();
      recorder = recordCommands(redis);
      const model = { provider: 'sim', pricing: { inputPerMTok: 1, cachedInputPerMTok: 1, outputPerMTok: 1 }, contextWindow: 100000, limits: { rpm: 60_000, inputTpm: 1e9, outputTpm: 1e9, concurrency: 1000 } };
      const catalog = parseModelCatalog({ providers: { sim: { kind: 'openai-compatible', baseUrlEnv: 'SIM_URL', simulated: true, timeoutMs: 10_000 } }, models: { m: model } }, 'budget-scripts spec');
      budget = new RedisRateBudget({ redis, keyPrefix: newPrefix() });
      client = new LlmClient({ catalog, env: { SIM_URL: sim.url }, budget });
    }, 60_000);

    afterAll(async () => {
      await client?.close();
      await sim?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const call = () =>
      client.complete({
        model: 'm', temperature: 0, sampleIndex: n++, templateVersion: 't', noCache: true,
        messages: [{ role: 'user', content: `Question: ${questions[n % questions.length]}\nAnswer with one SQLite query.` }],
      });

    it('sends two EVALSHA (acquire; settle + observe), no script text once the connection has run them', async () => {
      await call(); // the connection's first run of each script sends its text (EVAL) once
      recorder.clear();
      await call();
      const names = recorder.names();
      // Before: eval x3 (acquire, settle, observe), each with the script's whole text.
      expect(names).toEqual(['evalsha', 'evalsha']);
      // The headers were learned (observe ran within the second script).
      expect(Object.keys(await budget.learnedLimits('m')).length).toBeGreaterThan(0);
    });
  });

  describe('settleAndObserve stores what settle then observe store', () => {
    const setUp = async (redis: Redis, prefix: string, withBucket: boolean) => {
      const key = (part: string) => `${prefix}:{m}:${part}`;
      if (withBucket) await redis.hset(key('bucket'), 'r', '5.5', 'i', '900', 'o', '-40', 't', '1700000000000');
      await redis.zadd(key('leases'), Date.now() + 60_000, 'lease-1', Date.now() + 60_000, 'lease-2');
      await redis.hset(key('learned'), 'r', '400');
      return key;
    };
    const state = async (redis: Redis, key: (p: string) => string) => ({
      bucket: await redis.hgetall(key('bucket')),
      leases: await redis.zrange(key('leases'), 0, -1),
      learned: await redis.hgetall(key('learned')),
      learnedTtlSet: (await redis.pttl(key('learned'))) > 0,
    });
    const lease: BudgetLease = { id: 'lease-1', model: 'm', limits, inputTokens: 1_000, outputTokens: 200, waitedMs: 0 };
    const cases: [string, boolean, BudgetSettlement, RateLimitObservation][] = [
      ['usage below the estimate, every header', true, { inputTokens: 300, outputTokens: 50 }, { remainingRequests: 3, remainingInputTokens: 1_000, remainingOutputTokens: 1, limitRequests: 500, limitInputTokens: 400_000, limitOutputTokens: 80_000 }],
      ['usage above the estimate, remaining only', true, { inputTokens: 5_000, outputTokens: 900 }, { remainingInputTokens: 100 }],
      ['a refund, limits only', true, { inputTokens: 0, outputTokens: 0, refundRequest: true }, { limitRequests: 100 }],
      ['no bucket (expired)', false, { inputTokens: 300, outputTokens: 50 }, { remainingRequests: 0, limitInputTokens: 1_000 }],
      ['no headers', true, { inputTokens: 300, outputTokens: 50 }, {}],
    ];

    it.each(cases)('%s', async (_name, withBucket, actual, obs) => {
      const redis = connect();
      const two = new RedisRateBudget({ redis, keyPrefix: newPrefix(), burstSeconds: 1 });
      const one = new RedisRateBudget({ redis, keyPrefix: newPrefix(), burstSeconds: 1 });
      const twoKey = await setUp(redis, prefixes.at(-2)!, withBucket);
      const oneKey = await setUp(redis, prefixes.at(-1)!, withBucket);
      await two.settle(lease, actual);
      await two.observe('m', limits, obs);
      await one.settleAndObserve(lease, actual, obs);
      const expected = await state(redis, twoKey);
      expect(await state(redis, oneKey)).toEqual(expected);
      expect(expected.leases).toEqual(['lease-2']);
    });
  });

  it('defines each script once per connection: a second budget on a shared connection sends no script text', async () => {
    const redis = connect();
    await redis.ping();
    const recorder = recordCommands(redis);
    const prefix = newPrefix();
    const a = new RedisRateBudget({ redis, keyPrefix: prefix });
    const b = new RedisRateBudget({ redis, keyPrefix: prefix });
    const callers = new ModelCallers(redis, prefix);
    await a.settle(await a.acquire({ model: 'm', limits, inputTokens: 1, outputTokens: 1, priority: 'nightly', leaseMs: 10_000 }), { inputTokens: 1, outputTokens: 1 });
    await callers.heartbeat(['m']);
    expect(recorder.names()).toEqual(['eval', 'eval', 'eval']);
    recorder.clear();
    await b.settle(await b.acquire({ model: 'm', limits, inputTokens: 1, outputTokens: 1, priority: 'nightly', leaseMs: 10_000 }), { inputTokens: 1, outputTokens: 1 });
    await new ModelCallers(redis, prefix).heartbeat(['m']);
    expect(recorder.names()).toEqual(['evalsha', 'evalsha', 'evalsha']);
  });

  describe('after SCRIPT FLUSH (a Redis of its own)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'budget-scripts-redis-'));
    let own: OwnRedis | undefined;
    const maybe = hasRedisServer ? it : it.skip;

    beforeAll(async () => {
      if (hasRedisServer) own = await startOwnRedis(dir);
    }, 30_000);
    afterAll(async () => {
      await own?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    maybe('every script runs again: NOSCRIPT, then its text once', async () => {
      const url = `redis://127.0.0.1:${own!.port}`;
      // Closed before the server stops, so none of them is left reconnecting.
      const redis = new Redis(url, { maxRetriesPerRequest: null });
      const admin = new Redis(url, { maxRetriesPerRequest: null });
      try {
        await redis.ping();
        const recorder = recordCommands(redis);
        const prefix = newPrefix();
        const budget = new RedisRateBudget({ redis, keyPrefix: prefix, maxWaitMs: 100 });
        const callers = new ModelCallers(redis, prefix);
        const exercise = async () => {
          const l = await budget.acquire({ model: 'm', limits, inputTokens: 10, outputTokens: 10, priority: 'nightly', leaseMs: 10_000 });
          await budget.settleAndObserve(l, { inputTokens: 5, outputTokens: 5 }, { remainingRequests: 100, limitRequests: 500 });
          const l2 = await budget.acquire({ model: 'm', limits, inputTokens: 10, outputTokens: 10, priority: 'nightly', leaseMs: 10_000 });
          await budget.settle(l2, { inputTokens: 5, outputTokens: 5 });
          await budget.observe('m', limits, { remainingInputTokens: 100_000 });
          expect((await callers.heartbeat(['m'])).get('m')).toBe(1);
        };
        await exercise();
        expect(await admin.call('SCRIPT', 'FLUSH')).toBe('OK');
        recorder.clear();
        await exercise();
        // Each script: EVALSHA refused (NOSCRIPT), then EVAL; EVALSHA again from its next run on.
        expect(recorder.names()).toEqual(['evalsha', 'eval', 'evalsha', 'eval', 'evalsha', 'evalsha', 'eval', 'evalsha', 'eval', 'evalsha', 'eval']);
        await budget.blockFor('m', 1_000);
        await expect(budget.acquire({ model: 'm', limits, inputTokens: 1, outputTokens: 1, priority: 'nightly', leaseMs: 1_000 })).rejects.toMatchObject({ code: 'rate_limited' });
        expect(await budget.learnedLimits('m')).toEqual({ rpm: 500 });
      } finally {
        redis.disconnect();
        admin.disconnect();
      }
    }, 30_000);
  });

  describe('Redis Cluster (a one-node cluster of its own)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'budget-scripts-cluster-'));
    let own: OwnRedis | undefined;
    const maybe = hasRedisServer ? it : it.skip;

    beforeAll(async () => {
      if (!hasRedisServer) return;
      // Its bus on a free port of its own (port + 10000 may not exist); announced as 127.0.0.1 (else CLUSTER SLOTS says '').
      own = await startOwnRedis(dir, ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf'), '--cluster-port', String(await freeLocalPort()), '--cluster-announce-ip', '127.0.0.1']);
      const admin = new Redis(own.port, '127.0.0.1');
      await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
      for (let i = 0; !/cluster_state:ok/.test((await admin.call('CLUSTER', 'INFO')) as string); i++) {
        if (i > 200) throw new Error('the one-node cluster did not come up');
        await new Promise((r) => setTimeout(r, 50));
      }
      admin.disconnect();
    }, 30_000);
    afterAll(async () => {
      await own?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    // A Cluster still refuses a script whose keys lie in several slots (CROSSSLOT), one node or many.
    maybe('the scripts run by SHA, each call\'s keys in one slot', async () => {
      const redis = new Cluster([{ host: '127.0.0.1', port: own!.port }]);
      try {
        const budget = new RedisRateBudget({ redis, keyPrefix: 'p', maxWaitMs: 100 });
        const callers = new ModelCallers(redis, 'p');
        for (const model of ['a', 'b']) {
          for (let i = 0; i < 2; i++) {
            const l = await budget.acquire({ model, limits, inputTokens: 10, outputTokens: 10, priority: 'nightly', leaseMs: 10_000 });
            await budget.settleAndObserve(l, { inputTokens: 5, outputTokens: 5 }, { remainingRequests: 100, limitRequests: 500 });
          }
          expect(await budget.learnedLimits(model)).toEqual({ rpm: 500 });
          expect((await callers.heartbeat([model])).get(model)).toBe(1);
          await budget.blockFor(model, 1_000);
        }
        const direct = new Redis(own!.port, '127.0.0.1');
        const stats = (await direct.info('commandstats')).match(/cmdstat_evalsha:calls=(\d+)/);
        direct.disconnect();
        // The second round of each model: acquire and settle + observe by SHA.
        expect(Number(stats?.[1] ?? 0)).toBeGreaterThanOrEqual(4);
      } finally {
        redis.disconnect();
      }
    }, 30_000);
  });
});
