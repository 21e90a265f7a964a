import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { LlmClient, LlmError, type ChatMessage } from '@sqlsweep/llm';
import { startLlmSimulator, type LlmSimulatorHandle } from './server';
import { BIRD_SAMPLE, TEST_SIM_CONFIG, sqlOf, testCatalog } from './testing/sim-fixtures';

interface BirdItem { question: string; evidence: string; SQL: string }

describe('Anthropic SDK against llm-sim', () => {
  let sim: LlmSimulatorHandle;
  let client: LlmClient;
  const key = 'sk-ant-test-SECRET-91ab77';
  const bird = JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as BirdItem[];
  const longSchema = Array.from({ length: 120 }, (_, i) => `CREATE TABLE t${i} (id INTEGER PRIMARY KEY, name TEXT, value REAL);`).join('\n');

  beforeAll(async () => {
    sim = await startLlmSimulator({ datasetDirs: [BIRD_SAMPLE], config: TEST_SIM_CONFIG });
    client = new LlmClient({ catalog: testCatalog(), env: { SIM_URL: sim.url, SIM_KEY: key } });
  });
  afterAll(() => sim.close());

  const prompt = (item: BirdItem): ChatMessage[] => [
    { role: 'system', content: `Answer with one SQLite query in a \`\`\`sql block.\n\n${longSchema}`, cacheBreakpoint: true },
    { role: 'user', content: `Question: ${item.question}\nEvidence: ${item.evidence}` },
  ];

  it('answers through the messages API, and cache_control breakpoints write then read the shared prefix', async () => {
    const ask = (item: BirdItem) => client.complete({ model: 'claude-t-ok', messages: prompt(item), temperature: 0, sampleIndex: 0, templateVersion: 'v1' });
    const first = await ask(bird[3]!);
    expect(sqlOf(first.output)).toBe(bird[3]!.SQL);
    expect(first.simulated).toBe(true);
    expect(first.provider).toBe('sim-anthropic');
    expect(first.usage.cachedInputTokens).toBe(0);
    expect(first.usage.cacheWriteInputTokens).toBeGreaterThan(1024);
    const second = await ask(bird[4]!);
    expect(sqlOf(second.output)).toBe(bird[4]!.SQL);
    expect(second.usage.cachedInputTokens).toBeGreaterThan(1024);
    expect(second.usage.inputTokens).toBeGreaterThan(second.usage.cachedInputTokens);
    expect(second.costUsd).toBeLessThan(first.costUsd);
  });

  it('maps the 429 rate_limit_error with Retry-After, and exposes anthropic-ratelimit headers', async () => {
    const call = (i: number) =>
      client.complete({ model: 'claude-t-limited', messages: prompt(bird[i]!), temperature: 0, sampleIndex: 0, templateVersion: 'v1' });
    await call(5);
    const err = (await call(6).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('rate_limited');
    expect(err.retryAfterMs).toBeGreaterThan(50_000);

    const raw = new Anthropic({ apiKey: key, baseURL: sim.url, maxRetries: 0 });
    const refused = await raw.messages.create({ model: 't-limited', max_tokens: 100, messages: [{ role: 'user', content: `Question: ${bird[7]!.question}` }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    const headers = (refused as InstanceType<typeof Anthropic.RateLimitError>).headers;
    expect(headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(Number(headers.get('retry-after'))).toBeGreaterThan(50);
  });

  it('maps a 500 api_error to a retryable server error, and a slow answer to a timeout', async () => {
    const call = (model: string) =>
      client.complete({ model, messages: prompt(bird[8]!), temperature: 0, sampleIndex: 0, templateVersion: 'v1' }).catch((e: unknown) => e as LlmError);
    const server = await call('claude-t-flaky');
    expect(server).toMatchObject({ code: 'server', status: 500, retryable: true });
    const started = Date.now();
    const slow = await call('claude-t-slow');
    expect(slow).toMatchObject({ code: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('maps "credit balance too low" to quota_exhausted', async () => {
    const err = (await client
      .complete({ model: 'claude-t-broke', messages: prompt(bird[0]!), temperature: 0, sampleIndex: 0, templateVersion: 'v1' })
      .catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('quota_exhausted');
    expect(err.retryable).toBe(false);
  });
});
