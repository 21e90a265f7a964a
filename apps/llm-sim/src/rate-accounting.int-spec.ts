import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LlmClient, LlmError, RedisRateBudget, estimateTokens, parseModelCatalog, type LlmClientOptions, type LlmResponse } from '@sqlsweep/llm';
import { parseSimConfig } from './sim-config';
import { BIRD_SAMPLE, sqlPrompt } from './testing/sim-fixtures';
import { startSimAndRedis, stopSimAndRedis, type SimAndRedis } from './testing/sim-and-redis';

// A one-second rolling window stands in for OpenAI's minute: per-minute limits are scaled to it by the simulator.
// 180k TPM = 3,000 tokens per second: about six calls of a ~60-token prompt + 400 max_tokens.
const SERVER_TPM = 180_000;
const MAX_TOKENS = 400;

const simConfig = parseSimConfig(
  {
    models: {
      'o-exact': { accuracy: 1, accounting: 'openai', windowSeconds: 1, rpm: 60_000, tpm: SERVER_TPM },
      'o-high': { accuracy: 1, accounting: 'openai', windowSeconds: 1, rpm: 60_000, tpm: SERVER_TPM },
      'o-low': { accuracy: 1, accounting: 'openai', windowSeconds: 1, rpm: 60_000, tpm: SERVER_TPM },
      'o-capped': { accuracy: 1, accounting: 'openai', windowSeconds: 1, rpm: 60_000, tpm: SERVER_TPM },
      'o-cut': { accuracy: 1, accounting: 'openai', windowSeconds: 60, rpm: 60_000, tpm: 10_000_000 },
      // Anthropic-style token buckets, 4 requests per second.
      'b-herd': { accuracy: 1, rpm: 240, burstSeconds: 60 },
      'b-anthropic': { accuracy: 1, rpm: 1_000, tpm: 500_000, outputTpm: 100_000 },
    },
  },
  'rate-accounting spec',
);

describe('budgeting what the provider counts (real simulator, real Redis)', () => {
  let sim: SimAndRedis['sim'];
  let redis: SimAndRedis['redis'];
  const prefix = `test-rate-accounting-${randomUUID()}`;
  const questions = JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as Array<{ question: string }>;
  const pricing = { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 };

  const catalog = () =>
    parseModelCatalog(
      {
        providers: {
          sim: { kind: 'openai-compatible', baseUrlEnv: 'SIM_URL', simulated: true, timeoutMs: 10_000 },
          'sim-anthropic': { kind: 'anthropic', baseUrlEnv: 'SIM_URL', apiKeyEnv: 'SIM_KEY', simulated: true, timeoutMs: 10_000 },
        },
        models: {
          'o-exact': { provider: 'sim', pricing, contextWindow: 128_000, limits: { rpm: 60_000, tpm: SERVER_TPM, concurrency: 64 } },
          'o-high': { provider: 'sim', pricing, contextWindow: 128_000, limits: { rpm: 60_000, tpm: SERVER_TPM * 4, concurrency: 64 } },
          'o-low': { provider: 'sim', pricing, contextWindow: 128_000, limits: { rpm: 60_000, tpm: SERVER_TPM / 2, concurrency: 64 } },
          'o-capped': { provider: 'sim', pricing, contextWindow: 128_000, limits: { rpm: 60_000, tpm: SERVER_TPM, concurrency: 64 } },
          'o-cut': { provider: 'sim', pricing, contextWindow: 128_000, limits: { rpm: 60_000, tpm: 10_000_000, concurrency: 64 } },
          'b-herd': { provider: 'sim', pricing, contextWindow: 128_000, limits: { rpm: 240, inputTpm: 10_000_000, outputTpm: 10_000_000, concurrency: 64 } },
          'claude-b': { provider: 'sim-anthropic', apiModel: 'b-anthropic', pricing, contextWindow: 128_000, limits: { rpm: 4_000, inputTpm: 2_000_000, outputTpm: 400_000, concurrency: 64 } },
        },
      },
      'rate-accounting spec catalog',
    );

  const client = (logs: object[] = [], outputCaps?: LlmClientOptions['outputCaps']) => {
    // The client's burst must fit in the headroom of the server's (here one-second) window: 20 % of 1 s.
    const budget = new RedisRateBudget({ redis, keyPrefix: `${prefix}:${randomUUID()}`, headroom: 0.2, rollingBurstSeconds: 0.01, maxWaitMs: 30_000 });
    return { budget, llm: new LlmClient({ catalog: catalog(), env: { SIM_URL: sim.url, SIM_KEY: 'k' }, budget, logger: (o) => logs.push(o), outputCaps }) };
  };

  /** n calls at once (questions from `first`), each retried after a provider 429 the way a queue would (after its Retry-After). */
  const callAll = (llm: LlmClient, model: string, n: number, opts: { stage?: string; first?: number } = {}) =>
    Promise.all(
      Array.from({ length: n }, async (_, i): Promise<LlmResponse> => {
        for (;;) {
          try {
            return await llm.complete({
              model, messages: sqlPrompt(questions[(opts.first ?? 0) + i]!.question), temperature: 0, maxTokens: MAX_TOKENS, sampleIndex: 0, templateVersion: 'v1', noCache: true,
              ...(opts.stage ? { attribution: { stage: opts.stage } } : {}),
            });
          } catch (err) {
            if (!(err instanceof LlmError) || err.code !== 'rate_limited') throw err;
            await new Promise((r) => setTimeout(r, err.retryAfterMs ?? 500));
          }
        }
      }),
    );

  beforeAll(async () => {
    ({ sim, redis } = await startSimAndRedis(simConfig));
  });
  afterAll(() => stopSimAndRedis({ sim, redis }, prefix));

  it('charges prompt + max_tokens at admission under a single TPM, so a server counting that way refuses nothing', async () => {
    const { llm } = client();
    const prompt = estimateTokens('o-exact', sqlPrompt(questions[0]!.question));
    expect(prompt + MAX_TOKENS).toBeLessThan(600); // about five calls fit the server's window
    const started = Date.now();
    const responses = await callAll(llm, 'o-exact', 12);
    expect(responses).toHaveLength(12);
    const stats = sim.simulator.statsSnapshot()['o-exact']!;
    expect(stats.rateLimited).toBe(0);
    expect(stats.ok).toBe(12);
    // 12 x ~460 tokens at 80 % of 3,000/s: the budget paced them by what the server charges, not by the ~20 output tokens.
    expect(Date.now() - started).toBeGreaterThan(1_000);
  });

  it('learns the server limits from x-ratelimit-* headers: a limit declared 4x too high converges, one 2x too low is reported', async () => {
    const logs: object[] = [];
    const high = client(logs);
    await callAll(high.llm, 'o-high', 16);
    await expect(high.budget.learnedLimits('o-high')).resolves.toMatchObject({ inputTpm: SERVER_TPM });
    // Only the calls sent before the first answer came back can be refused.
    const refusedHigh = sim.simulator.statsSnapshot()['o-high']!.rateLimited;
    expect(refusedHigh).toBeLessThanOrEqual(6);
    const before = refusedHigh;
    await callAll(high.llm, 'o-high', 12);
    expect(sim.simulator.statsSnapshot()['o-high']!.rateLimited - before).toBeLessThanOrEqual(1);

    const low = client(logs);
    await callAll(low.llm, 'o-low', 2);
    expect(low.llm.limitsDeclaredTooLow.get('o-low')).toContain(`tpm ${SERVER_TPM} (declared ${SERVER_TPM / 2})`);
    expect(logs).toContainEqual(expect.objectContaining({ severity: 'warn', model: 'o-low', msg: expect.stringContaining('the provider allows more') }));
    expect(sim.simulator.statsSnapshot()['o-low']!.rateLimited).toBe(0);
  });

  it('learns ITPM and OTPM apart from anthropic-ratelimit-* headers', async () => {
    const { llm, budget } = client();
    await callAll(llm, 'claude-b', 2);
    await expect(budget.learnedLimits('claude-b')).resolves.toEqual({ rpm: 1_000, inputTpm: 500_000, outputTpm: 100_000 });
  });

  it('after a Retry-After admits the waiting calls at the budget rate, not all at once', async () => {
    // Another application on the same key empties the server's bucket (240 requests of burst) and goes on until
    // refused, so our first calls are refused before any answer tells the budget what is left.
    const other = new LlmClient({ catalog: catalog(), env: { SIM_URL: sim.url } });
    await Promise.all(
      Array.from({ length: 250 }, (_, i) =>
        other.complete({ model: 'b-herd', messages: sqlPrompt(questions[i % 20]!.question), temperature: 0, maxTokens: MAX_TOKENS, sampleIndex: 0, templateVersion: 'v1', noCache: true }).catch(() => undefined),
      ),
    );
    const before = sim.simulator.statsSnapshot()['b-herd']!;
    const logs: Array<{ msg?: string; status?: number; at: number }> = [];
    const budget = client().budget;
    const llm = new LlmClient({ catalog: catalog(), env: { SIM_URL: sim.url }, budget, logger: (o) => logs.push({ ...o, at: Date.now() }) });
    await callAll(llm, 'b-herd', 12);
    const after = sim.simulator.statsSnapshot()['b-herd']!;
    expect(after.ok - before.ok).toBe(12);
    // The first wave (sent before the first 429 came back) is refused; what waited is then paced at 4/s by the
    // budget and fits the server's refill. Released all at once, every wave would be refused but one call.
    const refusals = logs.filter((l) => l.msg === 'llm call failed' && l.status === 429).map((l) => l.at);
    expect(after.rateLimited - before.rateLimited).toBe(refusals.length);
    const firstWaveEnds = refusals[0]! + 100;
    expect(refusals.filter((t) => t > firstWaveEnds).length).toBeLessThanOrEqual(2);
  });

  it("sends a stage's learned max_tokens, so a server charging max_tokens at admission charges what the stage needs", async () => {
    const { llm } = client();
    const stats = () => sim.simulator.statsSnapshot()['o-capped']!;
    const learning = await callAll(llm, 'o-capped', 20, { stage: 'zero-shot.sql' });
    expect(stats().maxTokensAdmitted).toBe(20 * MAX_TOKENS);
    const longest = Math.max(...learning.map((r) => r.usage.outputTokens));
    const before = stats();
    const capped = await callAll(llm, 'o-capped', 20, { stage: 'zero-shot.sql', first: 20 });
    const after = stats();
    // p99 x 1.5 + 16 of the first twenty answers, instead of the stage's 400.
    const perCall = (after.maxTokensAdmitted - before.maxTokensAdmitted) / 20;
    expect(perCall).toBeLessThanOrEqual(Math.ceil(longest * 1.5) + 16);
    expect(perCall).toBeLessThan(MAX_TOKENS / 2);
    expect(after.rateLimited - before.rateLimited).toBe(0);
    // A stage the client has not seen (or a call with no stage) still sends its full limit.
    await callAll(llm, 'o-capped', 1, { stage: 'other.stage' });
    expect(stats().maxTokensAdmitted - after.maxTokensAdmitted).toBe(MAX_TOKENS);
    expect(capped.every((r) => r.usage.outputTokens < perCall * 2)).toBe(true);
  });

  it('asks again with the stage limit when an answer fills the learned cap, and reports both calls paid', async () => {
    // A cap of half the median answer: about half the answers are cut and must be asked again.
    const { llm } = client([], { minObservations: 3, quantile: 0.5, headroom: 0.5, slack: 0, window: 10 });
    const uncapped = await callAll(client().llm, 'o-cut', 12, { first: 3 });
    const before = sim.simulator.statsSnapshot()['o-cut']!;
    await callAll(llm, 'o-cut', 3, { stage: 'cut.sql' });
    const answers = await callAll(llm, 'o-cut', 12, { stage: 'cut.sql', first: 3 });
    const after = sim.simulator.statsSnapshot()['o-cut']!;
    expect(answers.map((a) => a.output)).toEqual(uncapped.map((a) => a.output));
    const reasked = answers.filter((a, i) => a.usage.outputTokens > uncapped[i]!.usage.outputTokens);
    expect(reasked.length).toBeGreaterThan(0);
    expect(after.requests - before.requests).toBe(3 + 12 + reasked.length);
    // What the provider counted is what the answers report: the cut calls are paid for too.
    const reported = answers.reduce((t, a) => t + a.usage.outputTokens, 0);
    const firstThree = after.outputTokens - before.outputTokens - reported;
    expect(firstThree).toBeGreaterThan(0);
    expect(firstThree).toBeLessThanOrEqual(3 * MAX_TOKENS);
    for (const a of reasked) expect(a.costUsd).toBeGreaterThan(uncapped[answers.indexOf(a)]!.costUsd);
  });
});
