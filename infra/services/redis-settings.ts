import Redis from 'ioredis';

/** What BullMQ needs from Redis: durable jobs (AOF fsync'd every second) and no eviction of queue keys. */
export const REQUIRED_REDIS_SETTINGS: Readonly<Record<string, string>> = {
  appendonly: 'yes',
  appendfsync: 'everysec',
  'maxmemory-policy': 'noeviction',
};

export interface SettingChange {
  name: string;
  from: string;
  to: string;
}

/**
 * Reads the required settings and CONFIG SETs those that differ. Returns what was changed.
 * Fails with a clear message when the server refuses CONFIG (managed services often do).
 */
export async function enforceRedisSettings(url: string): Promise<SettingChange[]> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => undefined);
  const changes: SettingChange[] = [];
  try {
    await client.connect();
    for (const [name, wanted] of Object.entries(REQUIRED_REDIS_SETTINGS)) {
      let current: string;
      try {
        const reply = (await client.config('GET', name)) as string[];
        current = reply[1] ?? '';
      } catch (error) {
        throw new Error(
          `Redis at ${redactUrl(url)}: cannot read setting ${name} (${(error as Error).message}); ` +
            `sqlsweep needs ${describeRequired()} — set them in the server's configuration`,
        );
      }
      if (current === wanted) continue;
      try {
        await client.config('SET', name, wanted);
      } catch (error) {
        throw new Error(
          `Redis at ${redactUrl(url)}: ${name} is "${current}", sqlsweep needs "${wanted}", and CONFIG SET failed ` +
            `(${(error as Error).message}); set it in the server's configuration`,
        );
      }
      changes.push({ name, from: current, to: wanted });
    }
    return changes;
  } finally {
    client.disconnect();
  }
}

export function describeRequired(): string {
  return Object.entries(REQUIRED_REDIS_SETTINGS)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
}

/** Hides a password in a URL before it is printed. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    // Not a URL to WHATWG (redis+sentinel://h1:p1,h2:p2/…): the password is masked by hand.
    return url.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@');
  }
}
