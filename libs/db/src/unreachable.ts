/** Node's socket errors that mean "the server is not there (yet)" rather than "the request was wrong". */
const unreachableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
/** Postgres SQLSTATEs of a server shutting down or starting up: admin_shutdown, crash_shutdown, cannot_connect_now. */
const unavailableSqlStates = new Set(['57P01', '57P02', '57P03']);
/** pg and ioredis say these without a code when a connection dies under a query or cannot be made. */
const droppedConnection = /^(Connection terminated|Connection is closed|Client has encountered a connection error|timeout exceeded when trying to connect|Reached the max retries per request limit)/;

/**
 * Whether `e` says Postgres or Redis could not be reached or went away, so the same request may succeed later.
 * Duck-typed: errors made by Node's own sockets need not be `instanceof` this realm's Error (under Jest they are not).
 */
export function isUnreachableError(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, message, errors } = e as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string' && (unreachableCodes.has(code) || unavailableSqlStates.has(code) || code.startsWith('08'))) return true;
  if (typeof message === 'string' && droppedConnection.test(message)) return true;
  // Node reports a refused connection to a name with several addresses as an AggregateError of the attempts.
  return Array.isArray(errors) && errors.length > 0 && errors.every(isUnreachableError);
}
