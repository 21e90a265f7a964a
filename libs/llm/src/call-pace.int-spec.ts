import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
// nx-ignore-next-line
import { startSimulator, testRedisUrl, type Simulator, TempDirs } from '@sqlsweep/testing';
import { LlmCallPace } from './call-pace';
import { LlmClient } from './llm-client';
import { parseModelCatalog } from './model-catalog';
import { ModelCallers } from './model-callers';
import { RedisRateBudget } from './rate-budget';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

const redisUrl = testRedisUrl();
const RPM = 2_400; // 40 calls/s: the binding limit of both models
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Questions the simulator knows (it answers only those). */
const questions = (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'data', 'minibench', 'dist', 'dev.json'), 'utf8')) as { question: string }[]).map((q) => q.question);

/**
 * The adaptive concurrency against real Redis (the shared budget, the callers registry) and the real simulator: a pool
 * that keeps as many calls going as LlmCallPace says must keep the budget's limit busy at a model's latency, and no more.
 */
describe('LlmCallPace: concurrency follows the admitted rate x latency (real Redis, real simulator)', () => {
  let sim: Simulator;
  let redis: Redis;
  let prefix: string;
  let client: LlmClient;
  let pace: LlmCallPace;

  beforeAll(async () => {
    const dir = temp.make('call-pace-');
    const simConfig = join(dir, 'llm-sim.yaml');
    // The simulator's own limits are far away: the shared budget (RPM) is what binds. Fixed latencies (p95 = median).
    writeFileSync(simConfig, [
      'models:',
      '  fast: { accuracy: 1, rpm: 1000000, tpm: 1000000000, outputTpm: 1000000000, latencyMs: { median: 150, p95: 150 }, serverErrorRate: 0 }',
      '  slow: { accuracy: 1, rpm: 1000000, tpm: 1000000000, outputTpm: 1000000000, latencyMs: { median: 450, p95: 450 }, serverErrorRate: 0 }',
    ].join('\n'));
    sim = await startSimulator({ config: simConfig });
    redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    prefix = `test:call-pace:${randomUUID()}`;
    const model = { provider: 'sim', pricing: { inputPerMTok: 1, cachedInputPerMTok: 1, outputPerMTok: 1 }, contextWindow: 100000, limits: { rpm: RPM, inputTpm: 1e9, outputTpm: 1e9, concurrency: 1000 } };
    const catalog = parseModelCatalog({
      providers: { sim: { kind: 'openai-compatible', baseUrlEnv: 'SIM_URL', simulated: true, timeoutMs: 10_000 } },
      models: { fast: model, slow: model },
    }, 'call-pace spec');
    pace = new LlmCallPace({ windowMs: 5_000 });
    client = new LlmClient({
      catalog, env: { SIM_URL: sim.url },
      // A one-second burst: the limit binds within the test instead of after a minute.
      budget: new RedisRateBudget({ redis, keyPrefix: prefix, burstSeconds: 1 }),
      onCall: (o) => pace.observeCall(o),
    });
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis?.disconnect();
    await sim?.stop();
  });

  /** Calls `model` for `ms` through a pool resized every 200 ms to pace's concurrency; the last concurrency and calls/s. */
  async function drive(model: string, ms: number): Promise<{ concurrency: number; callsPerSecond: number; latencyMs: number; admittedPerSecond: number }> {
    let concurrency = 1;
    let running = 0;
    let calls = 0;
    let n = 0;
    const until = Date.now() + ms;
    const started = Date.now();
    const countFrom = started + ms / 2; // calls/s over the second half, once the pool has grown
    let counted = 0;
    const one = async () => {
      running++;
      try {
        await client.complete({
          model, temperature: 0, sampleIndex: n++, templateVersion: 't', noCache: true,
          messages: [{ role: 'user', content: `Question: ${questions[n % questions.length]}\nAnswer with one SQLite query.` }],
        });
        calls++;
        if (Date.now() >= countFrom) counted++;
      } finally {
        running--;
      }
    };
    const inFlight = new Set<Promise<void>>();
    while (Date.now() < until) {
      concurrency = pace.concurrency({ min: 1, max: 200, headroom: 1.2 }).concurrency;
      while (running < concurrency) {
        const p = one().finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await sleep(200);
    }
    await Promise.all(inFlight);
    expect(calls).toBeGreaterThan(0);
    const p = pace.pace(model)!;
    // The pool's size as the calls just made set it (recomputed: a loaded machine may have let the loop lag).
    concurrency = pace.concurrency({ min: 1, max: 200, headroom: 1.2 }).concurrency;
    return { concurrency, callsPerSecond: counted / ((until - countFrom) / 1000), latencyMs: p.meanLatencyMs, admittedPerSecond: p.admittedPerSecond };
  }

  it('holds about rate x latency calls: three times as many at three times the latency, the limit busy both times', async () => {
    const fast = await drive('fast', 5_000);
    await sleep(5_100); // the fast model leaves the window
    const slow = await drive('slow', 5_000);
    const limitPerS = (RPM * 0.98) / 60;
    expect(fast.admittedPerSecond).toBeCloseTo(limitPerS, 5);
    // The latencies seen: the simulator's 150 and 450 ms plus this machine's own delays (which a loaded machine adds to).
    expect(fast.latencyMs).toBeGreaterThanOrEqual(140);
    expect(slow.latencyMs).toBeGreaterThanOrEqual(440);
    // Little's law: 39.2/s x latency x 1.2 (about 7 at 150 ms, 21 at 450 ms), give or take a tick's change.
    for (const r of [fast, slow]) {
      const little = (limitPerS * r.latencyMs * 1.2) / 1000;
      expect(r.concurrency).toBeGreaterThanOrEqual(Math.floor(little * 0.8));
      expect(r.concurrency).toBeLessThanOrEqual(Math.ceil(little * 1.25) + 1);
    }
    // The concurrency follows the latency: their ratios agree.
    const ratio = (slow.concurrency / fast.concurrency) / (slow.latencyMs / fast.latencyMs);
    expect(ratio).toBeGreaterThan(0.7);
    expect(ratio).toBeLessThan(1.4);
    // The limit, not the pool, bounds the calls: both run at the budget's rate (above it by no more than the bucket's
    // one-second burst spread over the 2.5 s counted).
    expect(fast.callsPerSecond).toBeGreaterThan(limitPerS * 0.8);
    expect(slow.callsPerSecond).toBeGreaterThan(limitPerS * 0.8);
    expect(fast.callsPerSecond).toBeLessThan(limitPerS * 1.45);
    expect(slow.callsPerSecond).toBeLessThan(limitPerS * 1.45);
  }, 40_000);

  it('gives each process calling a model its share: two callers in Redis halve the concurrency, one leaving restores it', async () => {
    await drive('slow', 2_000);
    const me = new ModelCallers(redis, prefix, 15_000);
    const other = new ModelCallers(redis, prefix, 15_000);
    const bounds = { min: 1, max: 200, headroom: 1.2 };
    const alone = pace.concurrency(bounds, await me.heartbeat(['slow'])).concurrency;
    await other.heartbeat(['slow']);
    const shared = await me.heartbeat(['slow']);
    expect(shared.get('slow')).toBe(2);
    const half = pace.concurrency(bounds, shared).concurrency;
    expect(half).toBeGreaterThanOrEqual(Math.floor(alone / 2) - 1);
    expect(half).toBeLessThanOrEqual(Math.ceil(alone / 2) + 1);
    await other.leave(['slow']);
    expect((await me.heartbeat(['slow'])).get('slow')).toBe(1);
  }, 30_000);
});
