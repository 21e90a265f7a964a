import pino from 'pino';

/** A logger's warn method: `(fields, message)`, as pino's. */
export type WarnLog = (fields: object, msg: string) => void;

export interface ThrottledWarningsOptions {
  /** After the first warning of a kind, at most one more per this many ms (default 30 s). */
  everyMs?: number;
  now?: () => number;
}

/** How many kinds of warning are remembered; the oldest is forgotten past this (its next one is logged at once). */
const MAX_KINDS = 200;

/**
 * Warnings about errors that repeat while a server is away (a Redis or Postgres connection retrying every few hundred
 * ms): the first of each kind (source and message) is logged at once, then at most one every `everyMs`, carrying how
 * many of that kind were left out since the last one logged.
 */
export class ThrottledWarnings {
  private readonly kinds = new Map<string, { loggedAt: number; leftOut: number }>();
  private readonly everyMs: number;
  private readonly now: () => number;

  constructor(private readonly log: WarnLog, opts: ThrottledWarningsOptions = {}) {
    this.everyMs = opts.everyMs ?? 30_000;
    this.now = opts.now ?? Date.now;
  }

  warn(source: string, err: unknown): void {
    const message = errorMessage(err);
    const kind = `${source}\n${kindOf(message)}`;
    const at = this.now();
    const seen = this.kinds.get(kind);
    if (seen && at - seen.loggedAt < this.everyMs) {
      seen.leftOut++;
      return;
    }
    const code = (err as { code?: unknown } | null)?.code;
    this.log({ source, err: message, ...(typeof code === 'string' ? { code } : {}), ...(seen ? { repeatedSinceLastWarning: seen.leftOut + 1 } : {}) }, `${source}: ${message}`);
    this.kinds.delete(kind); // re-inserted last: the Map's order is the order of last logging
    this.kinds.set(kind, { loggedAt: at, leftOut: 0 });
    if (this.kinds.size > MAX_KINDS) this.kinds.delete(this.kinds.keys().next().value!);
  }

  /** An 'error' listener (for a Redis connection, a pg pool or client, a BullMQ worker) that warns here. */
  listener(source: string): (err: unknown) => void {
    return (err) => this.warn(source, err);
  }
}

/**
 * The kind of a message: the message with job ids, keys and other long hex or decimal runs masked, so that "Missing
 * key for job <id>" for a thousand jobs (Redis keys lost) is one kind, not a thousand.
 */
function kindOf(message: string): string {
  return message.replace(/\b[0-9a-f]{16,}\b/gi, '<id>').replace(/\d{4,}/g, '<n>');
}

/** A connection error's message; Node's AggregateError (every address of a host refused) has an empty one. */
function errorMessage(err: unknown): string {
  const e = err as { message?: unknown; errors?: Array<{ message?: unknown }>; code?: unknown; name?: unknown } | null;
  if (typeof e?.message !== 'string') return String(err);
  if (e.message) return e.message;
  const inner = e.errors?.[0]?.message;
  if (typeof inner === 'string' && inner) return inner;
  return typeof e.code === 'string' ? e.code : String(e.name);
}

let processWarnings: ThrottledWarnings | undefined;

/**
 * This process's connection warnings, written to stderr as pino JSON lines: for connections whose owner passes no
 * logger of its own (the CLI's, the API's).
 */
export function connectionWarnings(): ThrottledWarnings {
  if (!processWarnings) {
    const logger = pino({ base: { pid: process.pid } }, pino.destination({ dest: 2, sync: true }));
    processWarnings = new ThrottledWarnings((fields, msg) => logger.warn(fields, msg));
  }
  return processWarnings;
}
