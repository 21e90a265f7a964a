import Redis from 'ioredis';
import { Client } from 'pg';

/** `final` means retrying is pointless (e.g. the server process has exited). */
export type ProbeResult<T> = { ok: true; value: T } | { ok: false; reason: string; final?: boolean };

export interface RedisInfo {
  version: string;
}

const PROBE_TIMEOUT_MS = 2_000;

/** Connects once, without retries, and reads the server version. Never throws. */
export async function probeRedis(url: string): Promise<ProbeResult<RedisInfo>> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const info = await client.info('server');
    const version = /^redis_version:(\S+)/m.exec(info)?.[1];
    if (!version) return { ok: false, reason: 'INFO server did not report redis_version' };
    return { ok: true, value: { version } };
  } catch (error) {
    return { ok: false, reason: describeError(error) };
  } finally {
    client.disconnect();
  }
}

export type PostgresProbe = { databaseExists: boolean; serverVersion: string };

/**
 * Connects to the URL's database. A server that answers "database does not exist" (3D000) is
 * reachable: the caller creates the database. Never throws.
 */
export async function probePostgres(url: string): Promise<ProbeResult<PostgresProbe>> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return { ok: true, value: { databaseExists: true, serverVersion: rows[0]?.server_version ?? 'unknown' } };
  } catch (error) {
    if (pgErrorCode(error) === '3D000') {
      const maintenance = await probePostgres(withMaintenanceDatabase(url));
      return maintenance.ok ? { ok: true, value: { ...maintenance.value, databaseExists: false } } : maintenance;
    }
    return { ok: false, reason: describeError(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

function withMaintenanceDatabase(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = '/postgres';
  return parsed.toString();
}

export function pgErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(describeError).join('; ');
  }
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** Version strings like "7.0.15" or "6.2"; missing parts count as 0. */
export function versionAtLeast(version: string, minimum: string): boolean {
  const parse = (v: string) => v.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const have = parse(version);
  const need = parse(minimum);
  for (let i = 0; i < Math.max(have.length, need.length); i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

export async function waitFor<T>(
  what: string,
  attempt: () => Promise<ProbeResult<T>>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not tried';
  while (Date.now() < deadline) {
    const result = await attempt();
    if (result.ok) return result.value;
    last = result.reason;
    if (result.final) throw new Error(`${what}: ${last}`);
    await sleep(200);
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms (last error: ${last})`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
