import type { IncomingMessage } from 'node:http';

export type Dialect = 'openai' | 'anthropic';

export interface Conversation {
  model: string;
  /** Role and text of every message, system first. */
  messages: Array<{ role: string; content: string }>;
  temperature: number;
  maxTokens: number | undefined;
  sampleIndex: number;
  /** Anthropic: text up to the last cache_control breakpoint. */
  breakpointPrefix?: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly code?: string,
  ) {
    super(message);
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        const p = part as { type?: string; text?: unknown };
        return p && (p.type === 'text' || p.type === undefined) && typeof p.text === 'string' ? p.text : '';
      })
      .join('');
  }
  return '';
}

function hasBreakpoint(content: unknown): boolean {
  return Array.isArray(content) && content.some((p: unknown) => !!(p as { cache_control?: unknown })?.cache_control);
}

/**
 * Sample index and temperature when the wire format has no field for them: the `x-sqlsweep-sample-index` and
 * `x-sqlsweep-temperature` headers, or, inside an Anthropic batch, `metadata.user_id` = `sqlsweep:t=<t>:s=<i>`.
 */
export interface SamplingHints {
  sampleIndex?: string | undefined;
  temperature?: string | undefined;
}

export function hintsFromHeaders(req: IncomingMessage): SamplingHints {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  return { sampleIndex: one(req.headers['x-sqlsweep-sample-index']), temperature: one(req.headers['x-sqlsweep-temperature']) };
}

export function hintsFromMetadata(metadata: unknown): SamplingHints {
  const userId = (metadata as { user_id?: unknown } | undefined)?.user_id;
  const m = typeof userId === 'string' ? /^sqlsweep:t=([\d.]+):s=(\d+)$/.exec(userId) : null;
  return m ? { temperature: m[1], sampleIndex: m[2] } : {};
}

function sampleIndexFrom(hints: SamplingHints, seed: unknown): number {
  if (hints.sampleIndex !== undefined && /^\d+$/.test(hints.sampleIndex)) return Number(hints.sampleIndex);
  return typeof seed === 'number' && Number.isInteger(seed) ? seed : 0;
}

function temperatureFrom(hints: SamplingHints, bodyValue: unknown): number {
  if (typeof bodyValue === 'number') return bodyValue;
  const t = Number(hints.temperature);
  return hints.temperature !== undefined && Number.isFinite(t) ? t : 1;
}

export function parseConversation(dialect: Dialect, body: Record<string, unknown>, hints: SamplingHints): Conversation {
  if (typeof body.model !== 'string') throw new HttpError(400, 'invalid_request_error', 'model: required string');
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new HttpError(400, 'invalid_request_error', 'messages: required non-empty array');
  }
  const messages: Conversation['messages'] = [];
  let breakpointPrefix: string | undefined;
  let running = '';
  const add = (role: string, content: unknown) => {
    const text = textOf(content);
    messages.push({ role, content: text });
    running += `${role}\u0000${text}\u0000`;
    if (hasBreakpoint(content)) breakpointPrefix = running;
  };
  if (dialect === 'anthropic' && body.system !== undefined) add('system', body.system);
  body.messages.forEach((m: unknown, i: number) => {
    const msg = m as { role?: unknown; content?: unknown };
    if (typeof msg?.role !== 'string') throw new HttpError(400, 'invalid_request_error', `messages.${i}.role: required string`);
    add(msg.role, msg.content);
  });
  const maxTokens =
    typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
  if (dialect === 'anthropic' && maxTokens === undefined) throw new HttpError(400, 'invalid_request_error', 'max_tokens: Field required');
  const conv: Conversation = {
    model: body.model,
    messages,
    temperature: temperatureFrom(hints, body.temperature),
    maxTokens,
    sampleIndex: sampleIndexFrom(hints, body.seed),
  };
  if (breakpointPrefix !== undefined) conv.breakpointPrefix = breakpointPrefix;
  return conv;
}

