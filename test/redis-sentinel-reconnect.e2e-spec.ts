import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { findRedisBinaries, REDIS_CONF, startPrivateSentinelGroup, type PrivateSentinelGroup } from '@sqlsweep/infra';
import { newRedisClient } from '@sqlsweep/queue';

jest.setTimeout(60_000);

const binaries = findRedisBinaries();
const unavailable = typeof binaries === 'string' ? binaries : undefined;
if (unavailable) console.log(`redis sentinel reconnect e2e skipped: ${unavailable}`);
const describeSentinel = unavailable ? describe.skip : describe;

/**
 * ioredis ends a Sentinel client for good when its connection is closed while it is still asking the Sentinels for
 * the primary (its failover detector does that when +switch-master arrives mid-reconnect). Reproduced here without a
 * failover: the connector is closed at the moment the client starts connecting again.
 */
/** Closes the client's connector as it starts to reconnect (ioredis then ends it); true if it is ready within 5 s. */
async function readyAgainAfterClosedReconnect(client: Redis): Promise<boolean> {
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  client.once('connecting', () => (client as unknown as { connector: { disconnect(): void } }).connector.disconnect());
  client.disconnect(true);
  await ended;
  return new Promise<boolean>((resolve) => {
    client.once('ready', () => resolve(true));
    setTimeout(() => resolve(false), 5_000).unref();
  });
}

describeSentinel('a Sentinel client whose connection attempt is closed under it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-sentinel-reconnect-'));
  let group: PrivateSentinelGroup;

  beforeAll(async () => {
    group = await startPrivateSentinelGroup({ dir, binary: (binaries as { server: string }).server, confPath: REDIS_CONF, replicas: 0, sentinels: 1, quorum: 1 });
  });
  afterAll(async () => {
    await group?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects again instead of failing every later command with "Connection is closed."', async () => {
    const client = newRedisClient(group.url, { maxRetriesPerRequest: null }) as Redis;
    const errors: string[] = [];
    client.on('error', (e: Error) => errors.push(e.message));
    try {
      await expect(client.ping()).resolves.toBe('PONG');
      expect(await readyAgainAfterClosedReconnect(client)).toBe(true);
      await expect(client.set('reconnected', '1')).resolves.toBe('OK');
      expect(client.status).toBe('ready');
      expect(errors).toContain('Connection is closed.');
    } finally {
      client.disconnect();
    }
  });

  it("gives its duplicates (BullMQ's blocking connections) the same recovery", async () => {
    const original = newRedisClient(group.url, { maxRetriesPerRequest: null }) as Redis;
    const client = original.duplicate();
    for (const c of [original, client]) c.on('error', () => undefined);
    try {
      await expect(client.ping()).resolves.toBe('PONG');
      expect(await readyAgainAfterClosedReconnect(client)).toBe(true);
    } finally {
      client.disconnect();
      original.disconnect();
    }
  });

  it('stays closed when the caller closed it', async () => {
    const client = newRedisClient(group.url) as Redis;
    client.on('error', () => undefined);
    await client.ping();
    client.disconnect();
    await new Promise((r) => setTimeout(r, 500));
    expect(client.status).toBe('end');
  });
});
