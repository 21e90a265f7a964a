import { join } from 'node:path';
import OpenAI from 'openai';
import { decodeTokens, encodeTokens } from '@sqlsweep/llm/src/tokens';
import { parseSimConfig } from './sim-config';
import { startLlmSimulator, type LlmSimulator, type LlmSimulatorHandle } from './server';
import { sqlPrompt } from './testing/sim-fixtures';

const MINIBENCH = join(__dirname, '..', '..', '..', 'data', 'minibench', 'dist');
const question = 'What is the highest airport in the database?';

/** The fault modes the chaos benchmark injects: one stage protocol refused with a 400, and calls whose caller died. */
describe('llm-sim fault modes', () => {
  let sim: LlmSimulatorHandle & { simulator: LlmSimulator };
  let sdk: OpenAI;

  beforeAll(async () => {
    const config = parseSimConfig({
      models: {
        't-no-explain': { accuracy: 1, badRequestProtocols: ['explanation'] },
        't-slow': { accuracy: 1, latencyMs: { median: 1500, p95: 1500 } },
        't-no-headers': { accuracy: 1, accounting: 'openai', windowSeconds: 60, rpm: 1, rateLimitHeaders: false },
        't-headers': { accuracy: 1, accounting: 'openai', windowSeconds: 60, rpm: 1 },
        't-cut': { accuracy: 1 },
      },
    }, 'fault-modes test');
    sim = await startLlmSimulator({ datasetDirs: [MINIBENCH], config });
    sdk = new OpenAI({ apiKey: 'any', baseURL: `${sim.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => sim?.close());

  it('answers 400 to the stage protocol it is told to refuse, and every other protocol as usual', async () => {
    const explain = [
      { role: 'system' as const, content: 'Give an explanation of the query below, in plain words.' },
      { role: 'user' as const, content: `Question: ${question}\nSELECT 1` },
    ];
    const refused = await sdk.chat.completions.create({ model: 't-no-explain', messages: explain }).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    expect((refused as Error).message).toMatch(/stage protocol explanation/);

    const sql = await sdk.chat.completions.create({ model: 't-no-explain', messages: sqlPrompt(question) });
    expect(sql.choices[0]!.message.content).toMatch(/SELECT airport_name FROM airports/);
    expect(sim.simulator.statsSnapshot()['t-no-explain']).toMatchObject({ requests: 2, ok: 1, badRequests: 1 });
  });

  it('cuts an answer at max_tokens: that many tokens of it, decoded, with finish_reason length', async () => {
    const whole = await sdk.chat.completions.create({ model: 't-cut', messages: sqlPrompt(question) });
    const cut = await sdk.chat.completions.create({ model: 't-cut', messages: sqlPrompt(question), max_tokens: 3 });
    const text = whole.choices[0]!.message.content!;
    expect([whole.choices[0]!.finish_reason, cut.choices[0]!.finish_reason, cut.usage!.completion_tokens]).toEqual(['stop', 'length', 3]);
    expect(whole.usage!.completion_tokens).toBeGreaterThan(3);
    expect(cut.choices[0]!.message.content).toBe(decodeTokens(encodeTokens(text).slice(0, 3)));
    expect(text.startsWith(cut.choices[0]!.message.content!)).toBe(true);
  });

  it('counts a call in flight, and as abandoned once its caller has gone before the answer', async () => {
    const caller = new AbortController();
    const call = sdk.chat.completions.create({ model: 't-slow', messages: sqlPrompt(question) }, { signal: caller.signal }).catch(() => undefined);
    const stats = () => sim.simulator.statsSnapshot()['t-slow'];
    const until = async (what: () => boolean) => {
      for (const deadline = Date.now() + 5_000; !what(); await new Promise((r) => setTimeout(r, 20))) {
        if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(stats())}`);
      }
    };
    await until(() => stats()?.inFlight === 1);
    caller.abort();
    await call;
    await until(() => stats()!.inFlight === 0);
    expect(stats()).toMatchObject({ requests: 1, ok: 1, abandoned: 1, inFlight: 0 });

    await sdk.chat.completions.create({ model: 't-slow', messages: sqlPrompt(question) });
    expect(stats()).toMatchObject({ requests: 2, ok: 2, abandoned: 1, inFlight: 0 });
  });

  it('rateLimitHeaders: false sends no x-ratelimit-* headers, on answers or 429s, and keeps the 429s\' retry-after', async () => {
    const ask = (model: string) => fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer any' },
      body: JSON.stringify({ model, messages: sqlPrompt(question), max_tokens: 50 }),
    });
    const limitHeaders = (res: Response) => [...res.headers.keys()].filter((k) => k.startsWith('x-ratelimit-'));
    for (const model of ['t-headers', 't-no-headers']) {
      const answered = await ask(model);
      const refused = await ask(model); // 1 RPM: the second is refused
      expect([answered.status, refused.status]).toEqual([200, 429]);
      expect(Number(refused.headers.get('retry-after-ms'))).toBeGreaterThan(0);
      if (model === 't-headers') {
        expect(limitHeaders(answered)).toContain('x-ratelimit-limit-requests');
        expect(limitHeaders(refused)).toContain('x-ratelimit-remaining-requests');
      } else {
        expect([...limitHeaders(answered), ...limitHeaders(refused)]).toEqual([]);
      }
    }
  });
});
