import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnthropicProvider } from './anthropic.provider';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';
import { simulationFromBatchLine, simulationFromHeaders } from './simulation-report';

const features = { schemaRecall: 1, goldReachable: true, noiseTables: 3, examples: 0, skeletonMatch: false, hardness: 'medium' };

describe('simulationFromHeaders', () => {
  it('reads the probability and the features JSON', () => {
    const h = new Headers({ 'x-sim-probability': '0.62', 'x-sim-features': JSON.stringify(features) });
    expect(simulationFromHeaders(h)).toEqual({ simulation: { probability: 0.62, features } });
  });

  it('says nothing for a real model (no headers, or no header object at all)', () => {
    expect(simulationFromHeaders(new Headers({ 'x-ratelimit-remaining-requests': '5' }))).toEqual({});
    expect(simulationFromHeaders(null)).toEqual({});
  });

  it.each([
    [{ 'x-sim-probability': 'high', 'x-sim-features': '{}' }, /probability "high" is not a number between 0 and 1/],
    [{ 'x-sim-probability': '1.5', 'x-sim-features': '{}' }, /probability "1.5"/],
    [{ 'x-sim-probability': '0.5', 'x-sim-features': '{schemaRecall: 1' }, /features are not JSON/],
    [{ 'x-sim-probability': '0.5', 'x-sim-features': '[1,2]' }, /features must be a JSON object, got an array/],
    [{ 'x-sim-probability': '0.5', 'x-sim-features': '{"tables":{"a":1}}' }, /feature tables is not a number, boolean or string/],
    [{ 'x-sim-probability': '0.5' }, /features must be a JSON object, got undefined/],
    [{ 'x-sim-features': '{}' }, /probability undefined/],
  ])('drops a malformed report %j with a problem that names the headers', (headers, problem) => {
    const r = simulationFromHeaders(new Headers(headers as Record<string, string>));
    expect(r.simulation).toBeUndefined();
    expect(r.problem).toMatch(/x-sim-probability\/x-sim-features headers/);
    expect(r.problem).toMatch(problem);
  });
});

describe('simulationFromBatchLine', () => {
  it('reads the sim field of a batch result line, and nothing from a line without one', () => {
    expect(simulationFromBatchLine({ custom_id: 'a', sim: { probability: 0.4, features } })).toEqual({ simulation: { probability: 0.4, features } });
    expect(simulationFromBatchLine({ custom_id: 'a', response: {} })).toEqual({});
  });

  it('drops a malformed sim field with a problem', () => {
    expect(simulationFromBatchLine({ sim: 'p=0.4' }).problem).toMatch(/sim field: not an object/);
    expect(simulationFromBatchLine({ sim: { probability: 0.4 } }).problem).toMatch(/sim field: features must be a JSON object, got null/);
    expect(simulationFromBatchLine({ sim: { probability: -1, features } }).problem).toMatch(/probability -1/);
  });
});

/** A local endpoint answering every POST with `body` and `headers`, so the providers' raw-response reading is real. */
async function endpoint(body: object, headers: Record<string, string>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const call = { apiModel: 'sim-chatgpt', messages: [{ role: 'user' as const, content: 'q' }], temperature: 0, maxTokens: 64, sampleIndex: 0, timeoutMs: 5000 };
const simHeaders = { 'x-sqlsweep-simulated': 'true', 'x-sim-probability': '0.25', 'x-sim-features': JSON.stringify(features) };

describe('providers carry the simulator report from the HTTP response', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it('OpenAI-compatible', async () => {
    const ep = await endpoint({
      id: 'x', object: 'chat.completion', created: 0, model: 'sim-chatgpt',
      choices: [{ index: 0, message: { role: 'assistant', content: 'SELECT 1' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    }, simHeaders);
    server = ep.server;
    const p = new OpenAiCompatibleProvider({ name: 'sim', apiKey: 'k', baseUrl: `${ep.url}/v1`, maxTokensField: 'max_tokens' });
    const r = await p.complete(call);
    expect(r.simulation).toEqual({ probability: 0.25, features });
    expect(r.simulationProblem).toBeUndefined();
  });

  it('Anthropic, and a malformed report leaves the answer standing with a problem', async () => {
    const ep = await endpoint({
      id: 'msg_sim_1', type: 'message', role: 'assistant', model: 'sim-claude', content: [{ type: 'text', text: 'SELECT 1' }],
      stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 2 },
    }, { ...simHeaders, 'x-sim-features': 'not json' });
    server = ep.server;
    const p = new AnthropicProvider({ name: 'sim', apiKey: 'k', baseUrl: ep.url });
    const r = await p.complete(call);
    expect(r.output).toBe('SELECT 1');
    expect(r.simulation).toBeUndefined();
    expect(r.simulationProblem).toMatch(/features are not JSON/);
  });
});
