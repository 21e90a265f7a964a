import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { LlmClient, LlmError } from '@sqlsweep/llm';
import { startLlmSimulator, type LlmSimulator, type LlmSimulatorHandle } from './server';
import { BIRD_SAMPLE, SPIDER_SAMPLE, TEST_SIM_CONFIG, sqlOf, sqlPrompt, testCatalog } from './testing/sim-fixtures';

interface BirdItem { question: string; evidence: string; SQL: string }
interface SpiderItem { question: string; query: string }

describe('OpenAI SDK against llm-sim', () => {
  let sim: LlmSimulatorHandle & { simulator: LlmSimulator };
  const logs: object[] = [];
  const key = 'sk-test-SECRET-4f1c9e7d2b';
  let client: LlmClient;
  const bird = JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as BirdItem[];
  const spider = JSON.parse(readFileSync(join(SPIDER_SAMPLE, 'dev.json'), 'utf8')) as SpiderItem[];

  beforeAll(async () => {
    sim = await startLlmSimulator({ port: 0, datasetDirs: [BIRD_SAMPLE, SPIDER_SAMPLE], seed: 7, config: TEST_SIM_CONFIG });
    client = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url, SIM_KEY: key }, logger: (o) => logs.push(o) });
  });
  afterAll(async () => {
    await sim.close();
  });

  const req = (model: string, question: string, evidence?: string) => ({
    model,
    messages: sqlPrompt(question, evidence),
    temperature: 0,
    sampleIndex: 0,
    templateVersion: 'zero-shot@1',
  });

  it('answers a BIRD question with its gold SQL, realistic usage and the simulated mark', async () => {
    const item = bird[1]!;
    const res = await client.complete(req('t-ok', item.question, item.evidence));
    expect(sqlOf(res.output)).toBe(item.SQL);
    expect(res.simulated).toBe(true);
    expect(res.cached).toBe(false);
    expect(res.provider).toBe('sim');
    expect(res.usage.inputTokens).toBeGreaterThan(60);
    expect(res.usage.outputTokens).toBeGreaterThan(20);
    expect(res.costUsd).toBeCloseTo((res.usage.inputTokens * 2 + res.usage.outputTokens * 8) / 1e6, 12);
  });

  it('answers Spider questions; a wrong model gives a different, deterministic mistake', async () => {
    const item = spider[2]!;
    expect(sqlOf((await client.complete(req('t-ok', item.question))).output)).toBe(item.query);
    const wrong1 = sqlOf((await client.complete(req('t-wrong', item.question))).output);
    const wrong2 = sqlOf((await client.complete(req('t-wrong', item.question))).output);
    expect(wrong1).not.toBe(item.query);
    expect(wrong2).toBe(wrong1);
  });

  it('takes the known question occurring last in the conversation (few-shot examples come first)', async () => {
    const shot = spider[0]!;
    const target = spider[5]!;
    const messages = [
      { role: 'system' as const, content: 'Answer with one SQLite query in a ```sql block.' },
      { role: 'user' as const, content: `Question: ${shot.question}` },
      { role: 'assistant' as const, content: `\`\`\`sql\n${shot.query}\n\`\`\`` },
      { role: 'user' as const, content: `CREATE TABLE singer (...);\nQuestion: ${target.question}` },
    ];
    const res = await client.complete({ model: 't-ok', messages, temperature: 0, sampleIndex: 0, templateVersion: 'few-shot@1' });
    expect(sqlOf(res.output)).toBe(target.query);
  });

  it('matches the per-model accuracy over many items and varies samples only when temperature > 0', async () => {
    let correct = 0;
    for (const item of spider.slice(0, 200)) {
      const res = await client.complete(req('t-half', item.question));
      if (sqlOf(res.output) === item.query) correct++;
    }
    expect(correct / 200).toBeGreaterThan(0.38);
    expect(correct / 200).toBeLessThan(0.62);

    const item = spider[10]!;
    const at = (temperature: number, sampleIndex: number) =>
      client.complete({ ...req('t-half', item.question), temperature, sampleIndex }).then((r) => r.output);
    expect(new Set(await Promise.all([0, 1, 2, 3].map((s) => at(0, s)))).size).toBe(1);
    const hot = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((s) => at(0.8, s)));
    expect(new Set(hot).size).toBeGreaterThan(1);
    expect(hot.some((o) => sqlOf(o) === item.query)).toBe(true); // right for some samples, seeded mistakes for others
    expect(hot.some((o) => sqlOf(o) !== item.query)).toBe(true);
    expect(await at(0.8, 3)).toBe(hot[3]);
  });

  it('maps a 429 to rate_limited with the Retry-After delay and sends rate-limit headers', async () => {
    const item = bird[0]!;
    await client.complete(req('t-limited', item.question));
    const err = (await client.complete(req('t-limited', bird[2]!.question)).catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.code).toBe('rate_limited');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBeGreaterThan(50_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(60_000);

    const raw = new OpenAI({ apiKey: key, baseURL: `${sim.url}/v1`, maxRetries: 0 });
    const refused = await raw.chat.completions.create({ model: 't-limited', messages: sqlPrompt(item.question) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    const headers = (refused as InstanceType<typeof OpenAI.RateLimitError>).headers;
    expect(Number(headers.get('retry-after'))).toBeGreaterThan(50);
    expect(headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(headers.get('x-ratelimit-limit-requests')).toBe('1');
  });

  it('reads a rate_limit_exceeded 429 as a rate limit even when its text mentions billing (free-tier sentence)', async () => {
    await client.complete(req('t-limited-free', bird[0]!.question));
    const err = (await client.complete(req('t-limited-free', bird[2]!.question)).catch((e: unknown) => e)) as LlmError;
    expect(err.message).toMatch(/adding a payment method.*account\/billing/);
    expect(err.code).toBe('rate_limited');
    expect(err.retryAfterMs).toBeGreaterThan(50_000);
  });

  it('maps a 500 to a retryable server error', async () => {
    const err = (await client.complete(req('t-flaky', bird[0]!.question)).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('server');
    expect(err.status).toBe(500);
    expect(err.retryable).toBe(true);
  });

  it('maps a dropped connection to a retryable network error', async () => {
    const err = (await client.complete(req('t-drop', bird[0]!.question)).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('network');
    expect(err.retryable).toBe(true);
  });

  it('times out a slow answer at the provider timeout', async () => {
    const started = Date.now();
    const err = (await client.complete(req('t-slow', bird[0]!.question)).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('timeout');
    expect(err.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('maps insufficient_quota to quota_exhausted, which is not retryable', async () => {
    const err = (await client.complete(req('t-broke', bird[0]!.question)).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('quota_exhausted');
    expect(err.retryable).toBe(false);
  });

  it('refuses unknown models and missing keys before any call, naming them', () => {
    const noKey = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url } });
    expect(() => noKey.assertUsable(['t-ok', 'nope'])).toThrow(/t-ok: .*SIM_KEY is not set/);
    expect(() => noKey.assertUsable(['t-ok', 'nope'])).toThrow(/nope: unknown model "nope"/);
    const err = (() => {
      try {
        noKey.assertUsable(['nope']);
      } catch (e) {
        return e as LlmError;
      }
      return undefined;
    })();
    expect(err?.code).toBe('config');
    expect(() => client.assertUsable(['t-ok', 'claude-t-ok'])).not.toThrow();
  });

  it('answers 400 for a conversation with no known question', async () => {
    const err = (await client.complete(req('t-ok', 'What is the airspeed of an unladen swallow?')).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('bad_request');
    expect(err.message).toMatch(/no known question/);
  });

  it('reports cached prompt tokens for a repeated long prefix', async () => {
    const longSchema = Array.from({ length: 120 }, (_, i) => `CREATE TABLE t${i} (id INTEGER PRIMARY KEY, name TEXT, value REAL);`).join('\n');
    const ask = (q: string) => client.complete({ ...req('t-ok', q), messages: sqlPrompt(q, undefined, longSchema) });
    const first = await ask(spider[20]!.question);
    const second = await ask(spider[21]!.question);
    expect(first.usage.cachedInputTokens).toBe(0);
    expect(second.usage.cachedInputTokens).toBeGreaterThanOrEqual(1024);
    expect(second.usage.cachedInputTokens % 128).toBe(0);
    expect(second.costUsd).toBeLessThan(first.costUsd);
  });

  it('never logs the API key', () => {
    expect(logs.length).toBeGreaterThan(5);
    expect(JSON.stringify(logs)).not.toContain(key);
  });
});
