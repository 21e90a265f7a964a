import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTokens, encodeTokens } from '@sqlsweep/llm';
import { answerFor, detectProtocol, type SimAnswer, type SimulationMetadata } from './answer';
import { withoutRetrievedContext } from './protocols/r3';
import { GoldIndex } from './gold-index';
import { PrefixCache } from './prefix-cache';
import { seededRng } from './rng';
import { HttpError, hintsFromHeaders, parseConversation, type Conversation, type Dialect } from './conversation';
import { SimBatches } from './batches';
import { DEFAULT_SIM_CONFIG_FILE, loadSimConfig, type SimConfig, type SimModelConfig } from './sim-config';
import { RollingWindowLimiter } from './rolling-window-limiter';
import { TokenBucketLimiter } from './token-bucket-limiter';

export interface LlmSimulatorOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  datasetDirs: string[];
  seed?: number;
  configFile?: string;
  /** Overrides the config file. */
  config?: SimConfig;
}

export interface LlmSimulatorHandle {
  url: string;
  close(): Promise<void>;
}

export interface ModelStats {
  requests: number;
  ok: number;
  rateLimited: number;
  serverErrors: number;
  dropped: number;
  /** Answered 400 because the prompt's stage protocol is in `badRequestProtocols`. */
  badRequests: number;
  /** Answered (and counted in `ok`) but the client had gone before the answer was sent: a killed caller's calls. */
  abandoned: number;
  /** Requests now waiting out their latency. */
  inFlight: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** Sum of the `max_tokens` (or `max_completion_tokens`) of the requests the rate limiter admitted. */
  maxTokensAdmitted: number;
}

function simulationOf(answer: SimAnswer): SimulationMetadata {
  return { probability: answer.probability, features: answer.features };
}

/** `x-sim-probability` and `x-sim-features` (JSON): why the simulated model got this answer right or wrong. */
function simulationHeaders(answer: SimAnswer): Record<string, string> {
  return { 'x-sim-probability': String(answer.probability), 'x-sim-features': JSON.stringify(answer.features) };
}

const SIM_HEADERS = { 'x-sqlsweep-simulated': 'true', 'openai-processing-ms': '0' };
/** What OpenAI appends to rate-limit 429s of accounts without a payment method (see `billingSentenceOn429`). */
const BILLING_SENTENCE =
  ' Visit https://platform.openai.com/account/rate-limits to learn more. You can increase your rate limit by adding a payment method to your account at https://platform.openai.com/account/billing.';

/**
 * The prompt's count as libs/llm's estimator makes it (3 per reply, 3 per message: client estimates and simulator
 * counts agree), and its role and content tokens in order, for the prefix cache.
 */
function promptTokens(messages: Conversation['messages']): { count: number; tokens: number[] } {
  const tokens: number[] = [];
  let count = 3;
  for (const m of messages) {
    const role = encodeTokens(m.role);
    const content = encodeTokens(m.content);
    count += 3 + role.length + content.length;
    for (const t of role) tokens.push(t);
    for (const t of content) tokens.push(t);
  }
  return { count, tokens };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Log-normal latency with the configured median and 95th percentile. */
function latencyMs(cfg: SimModelConfig, rand: () => number, outputTokens: number): number {
  const { median, p95, perOutputToken } = cfg.latencyMs;
  if (median <= 0) return perOutputToken * outputTokens;
  const sigma = p95 > median ? Math.log(p95 / median) / 1.6449 : 0;
  const u1 = Math.max(rand(), 1e-12);
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rand());
  return median * Math.exp(sigma * z) + perOutputToken * outputTokens;
}

function readBodyBuffer(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBodyBuffer(req)).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...SIM_HEADERS, ...headers });
  res.end(text);
}

function errorBody(dialect: Dialect, err: HttpError): unknown {
  return dialect === 'anthropic'
    ? { type: 'error', error: { type: err.type, message: err.message } }
    : { error: { message: err.message, type: err.type, param: null, code: err.code ?? null } };
}

export class LlmSimulator {
  readonly index: GoldIndex;
  private readonly config: SimConfig;
  private readonly limiters = new Map<string, TokenBucketLimiter | RollingWindowLimiter>();
  private readonly cache = new PrefixCache();
  private readonly stats = new Map<string, ModelStats>();
  private readonly noise: () => number;
  private readonly seed: number;
  private readonly batches = new SimBatches(this);

  constructor(opts: LlmSimulatorOptions) {
    this.seed = opts.seed ?? 0;
    this.config = opts.config ?? loadSimConfig(opts.configFile ?? DEFAULT_SIM_CONFIG_FILE);
    this.index = new GoldIndex(opts.datasetDirs);
    this.noise = seededRng(this.seed, 'transient-noise');
  }

  modelConfigFor(model: string, dialect: Dialect): SimModelConfig {
    const cfg = this.config.models[model];
    if (!cfg) {
      throw new HttpError(404, dialect === 'anthropic' ? 'not_found_error' : 'invalid_request_error', `The model \`${model}\` does not exist (llm-sim knows: ${Object.keys(this.config.models).join(', ')})`, {}, 'model_not_found');
    }
    return cfg;
  }

  private statsFor(model: string): ModelStats {
    let s = this.stats.get(model);
    if (!s) {
      s = { requests: 0, ok: 0, rateLimited: 0, serverErrors: 0, dropped: 0, badRequests: 0, abandoned: 0, inFlight: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, maxTokensAdmitted: 0 };
      this.stats.set(model, s);
    }
    return s;
  }

  statsSnapshot(): Record<string, ModelStats> {
    return Object.fromEntries([...this.stats].map(([k, v]) => [k, { ...v }]));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = (req.url ?? '/').split('?')[0]!.replace(/^\/v1(?=\/)/, '');
    const dialect: Dialect = url.startsWith('/messages') ? 'anthropic' : 'openai';
    try {
      if (req.method === 'GET' && url === '/health') return send(res, 200, { ok: true, questions: this.index.size });
      if (req.method === 'GET' && url === '/sim/stats') return send(res, 200, this.statsSnapshot());
      if (req.method === 'GET' && url === '/models') {
        return send(res, 200, { object: 'list', data: Object.keys(this.config.models).map((id) => ({ id, object: 'model', created: 0, owned_by: 'llm-sim' })) });
      }
      if (req.method === 'POST' && (url === '/chat/completions' || url === '/messages')) return await this.complete(dialect, req, res);
      if (url.startsWith('/files') || url.startsWith('/batches') || url.startsWith('/messages/batches')) return await this.batchRoute(req, res, url);
      throw new HttpError(404, dialect === 'anthropic' ? 'not_found_error' : 'invalid_request_error', `llm-sim: no route ${req.method} ${req.url}`);
    } catch (err) {
      if (err instanceof HttpError) return send(res, err.status, errorBody(dialect, err), err.headers);
      const internal = new HttpError(500, dialect === 'anthropic' ? 'api_error' : 'server_error', `llm-sim internal error: ${(err as Error).message}`);
      if (!res.headersSent) send(res, 500, errorBody(dialect, internal));
    }
  }

  private async batchRoute(req: IncomingMessage, res: ServerResponse, url: string): Promise<void> {
    const parts = url.split('/').filter(Boolean);
    const anthropic = parts[0] === 'messages';
    if (req.method === 'POST' && url === '/files') {
      const form = await new Response(await readBodyBuffer(req), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
      const file = form.get('file');
      if (!(file instanceof Blob)) throw new HttpError(400, 'invalid_request_error', 'file: required multipart file field');
      const name = (file as Blob & { name?: string }).name ?? 'upload.jsonl';
      return send(res, 200, this.batches.createFile(name, String(form.get('purpose') ?? 'batch'), await file.text()));
    }
    if (req.method === 'GET' && parts[0] === 'files' && parts.length === 2) return send(res, 200, this.batches.getFile(parts[1]!));
    if (req.method === 'GET' && parts[0] === 'files' && parts[2] === 'content') {
      const text = this.batches.fileContent(parts[1]!);
      res.writeHead(200, { 'content-type': 'application/jsonl', ...SIM_HEADERS });
      return void res.end(text);
    }
    if (req.method === 'POST' && url === '/batches') return send(res, 200, this.batches.createOpenAiBatch(JSON.parse(await readBody(req)) as Record<string, unknown>));
    if (req.method === 'GET' && parts[0] === 'batches' && parts.length === 2) return send(res, 200, this.batches.getOpenAiBatch(parts[1]!));
    if (anthropic && req.method === 'POST' && parts.length === 2) {
      const base = `http://${req.headers.host ?? '127.0.0.1'}`;
      return send(res, 200, this.batches.createAnthropicBatch(JSON.parse(await readBody(req)) as Record<string, unknown>, base));
    }
    if (anthropic && req.method === 'GET' && parts.length === 3) return send(res, 200, this.batches.getAnthropicBatch(parts[2]!));
    if (anthropic && req.method === 'GET' && parts[3] === 'results') {
      const text = this.batches.anthropicResults(parts[2]!);
      res.writeHead(200, { 'content-type': 'application/x-jsonl', ...SIM_HEADERS });
      return void res.end(text);
    }
    throw new HttpError(404, anthropic ? 'not_found_error' : 'invalid_request_error', `llm-sim: no route ${req.method} ${req.url}`);
  }

  private async complete(dialect: Dialect, req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Recent Anthropic SDKs send the key as a bearer token, older ones as x-api-key: accept both.
    const apiKey = req.headers['x-api-key'] || req.headers.authorization?.replace(/^Bearer\s+/i, '');
    if (!apiKey) {
      throw new HttpError(401, dialect === 'anthropic' ? 'authentication_error' : 'invalid_request_error', 'No API key provided', {}, 'invalid_api_key');
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      throw new HttpError(400, 'invalid_request_error', 'request body is not valid JSON');
    }
    const conv = parseConversation(dialect, body, hintsFromHeaders(req));
    const cfg = this.modelConfigFor(conv.model, dialect);
    const stats = this.statsFor(conv.model);
    stats.requests++;

    if (cfg.quotaExhausted) {
      stats.rateLimited++;
      if (dialect === 'anthropic') {
        throw new HttpError(400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.');
      }
      throw new HttpError(429, 'insufficient_quota', 'You exceeded your current quota, please check your plan and billing details.', {}, 'insufficient_quota');
    }

    const prompt = promptTokens(conv.messages);
    let limiter = this.limiters.get(conv.model);
    if (!limiter) {
      limiter = cfg.accounting === 'openai' ? new RollingWindowLimiter(cfg) : new TokenBucketLimiter(cfg);
      this.limiters.set(conv.model, limiter);
    }
    const verdict = limiter.admit(prompt.count, conv.maxTokens ?? 0);
    const limitHeaders = cfg.rateLimitHeaders ? verdict.headers : {};
    if (!verdict.ok) {
      stats.rateLimited++;
      if (!Number.isFinite(verdict.retryAfterMs)) {
        throw new HttpError(400, 'invalid_request_error', `prompt of ${prompt.count} tokens exceeds the input token limit per minute`, limitHeaders);
      }
      throw new HttpError(
        429,
        dialect === 'anthropic' ? 'rate_limit_error' : 'requests',
        `Rate limit reached for ${conv.model}: limits ${cfg.rpm} RPM, ${cfg.tpm} input TPM, ${cfg.outputTpm} output TPM. Please try again in ${verdict.retryAfterMs}ms.${cfg.billingSentenceOn429 ? BILLING_SENTENCE : ''}`,
        { ...limitHeaders, 'retry-after': String(Math.ceil(verdict.retryAfterMs / 1000)), 'retry-after-ms': String(verdict.retryAfterMs) },
        'rate_limit_exceeded',
      );
    }
    stats.maxTokensAdmitted += conv.maxTokens ?? 0;

    const roll = this.noise();
    if (roll < cfg.dropRate) {
      stats.dropped++;
      req.socket.destroy();
      return;
    }
    if (roll < cfg.dropRate + cfg.serverErrorRate) {
      stats.serverErrors++;
      throw new HttpError(500, dialect === 'anthropic' ? 'api_error' : 'server_error', 'The server had an error while processing your request. Sorry about that!');
    }

    const out = this.generate(dialect, conv, cfg, prompt);
    limiter.chargeOutput(out.outputTokens);
    const wait = latencyMs(cfg, this.noise, out.outputTokens);
    stats.inFlight++;
    if (wait > 0) await sleep(wait);
    stats.inFlight--;
    if (req.socket.destroyed) {
      stats.abandoned++;
      return;
    }
    return send(res, 200, out.body, { ...limitHeaders, ...out.headers });
  }

  /**
   * The model's answer to a conversation as a response body of the dialect, with usage (tokenized prompt,
   * simulated prompt caching) and the simulator's own headers. Shared by the live and the batch endpoints.
   */
  generate(
    dialect: Dialect,
    conv: Conversation,
    cfg: SimModelConfig,
    prompt = promptTokens(conv.messages),
  ): { body: unknown; headers: Record<string, string>; outputTokens: number; simulation: SimulationMetadata } {
    const stats = this.statsFor(conv.model);
    const target = this.index.findTarget(conv.messages.map((m) => m.content).join('\n'));
    if (!target) {
      throw new HttpError(400, 'invalid_request_error', `llm-sim: no known question in the conversation (it knows ${this.index.size} questions from ${this.index.dirs.join(', ')})`);
    }
    // The question itself is data, not instructions: "Explain..." or "List the tables..." questions exist.
    const instructions = withoutRetrievedContext([conv.messages.find((m) => m.role === 'system')?.content ?? '', conv.messages.at(-1)?.content ?? '']
      .join('\n'))
      .split(target.question)
      .join(' ');
    const protocol = detectProtocol(instructions);
    if (cfg.badRequestProtocols.includes(protocol)) {
      stats.badRequests++;
      throw new HttpError(400, 'invalid_request_error', `This model's maximum context length was exceeded (llm-sim: stage protocol ${protocol} is configured to be refused)`, {}, 'context_length_exceeded');
    }
    const answer: SimAnswer = answerFor(this.index, target, protocol, {
      seed: this.seed,
      model: conv.model,
      weights: cfg.weights,
      accuracy: cfg.accuracy,
      temperature: conv.temperature,
      sampleIndex: conv.sampleIndex,
    }, conv.messages.map((m) => m.content).join('\n'));

    let outTokens = encodeTokens(answer.text);
    let truncated = false;
    if (conv.maxTokens !== undefined && outTokens.length > conv.maxTokens) {
      outTokens = outTokens.slice(0, conv.maxTokens);
      truncated = true;
    }
    const output = truncated ? decodeTokens(outTokens) : answer.text;
    const headers = {
      'x-sqlsweep-sim-correct': String(answer.correct),
      'x-sqlsweep-sim-protocol': answer.protocol,
      ...(answer.corruption ? { 'x-sqlsweep-sim-corruption': answer.corruption } : {}),
      ...simulationHeaders(answer),
    };
    stats.ok++;
    stats.outputTokens += outTokens.length;
    stats.inputTokens += prompt.count;

    if (dialect === 'openai') {
      const cached = this.cache.lookupAndStore(conv.model, prompt.tokens);
      stats.cachedInputTokens += cached;
      const body = {
        id: `chatcmpl-sim-${randomUUID()}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: conv.model,
        system_fingerprint: 'sqlsweep-llm-sim',
        choices: [{ index: 0, message: { role: 'assistant', content: output, refusal: null }, logprobs: null, finish_reason: truncated ? 'length' : 'stop' }],
        usage: {
          prompt_tokens: prompt.count,
          completion_tokens: outTokens.length,
          total_tokens: prompt.count + outTokens.length,
          prompt_tokens_details: { cached_tokens: cached },
        },
      };
      return { body, headers, outputTokens: outTokens.length, simulation: simulationOf(answer) };
    }

    // Anthropic: input_tokens excludes what was read from or written to the cache.
    let cacheRead = 0;
    let cacheWrite = 0;
    if (conv.breakpointPrefix !== undefined) {
      const prefixTokens = encodeTokens(conv.breakpointPrefix).length;
      if (prefixTokens >= 1024) {
        if (this.cache.breakpoint(conv.model, conv.breakpointPrefix)) cacheRead = prefixTokens;
        else cacheWrite = prefixTokens;
      }
    }
    stats.cachedInputTokens += cacheRead;
    const body = {
      id: `msg_sim_${randomUUID().replace(/-/g, '')}`,
      type: 'message',
      role: 'assistant',
      model: conv.model,
      content: [{ type: 'text', text: output }],
      stop_reason: truncated ? 'max_tokens' : 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: Math.max(0, prompt.count - cacheRead - cacheWrite),
        cache_creation_input_tokens: cacheWrite,
        cache_read_input_tokens: cacheRead,
        output_tokens: outTokens.length,
      },
    };
    return { body, headers: { ...headers, 'request-id': `req_sim_${randomUUID().replace(/-/g, '')}` }, outputTokens: outTokens.length, simulation: simulationOf(answer) };
  }
}

/** Starts the simulator's HTTP server. Its `url` serves both SDKs: OpenAI at `${url}/v1`, Anthropic at `url`. */
export async function startLlmSimulator(opts: LlmSimulatorOptions): Promise<LlmSimulatorHandle & { simulator: LlmSimulator }> {
  const simulator = new LlmSimulator(opts);
  encodeTokens('load the BPE ranks now, not inside the first request\'s latency');
  const server = createServer((req, res) => void simulator.handle(req, res));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    simulator,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
