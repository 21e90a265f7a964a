import { createServer } from 'node:net';
import { ThrottledWarnings } from '@sqlsweep/config';
// nx-ignore-next-line
import { testRedisUrl } from '@sqlsweep/testing';
import { createRedisConnection, type RedisClient } from './connection';

const redisUrl = testRedisUrl();

/** A port nothing listens on: taken from the OS, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const until = async (done: () => boolean, ms = 5_000) => {
  for (const end = Date.now() + ms; !done(); ) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('Redis connection errors are warned about, once per kind', () => {
  const lines: string[] = [];
  const warnings = new ThrottledWarnings((_fields, msg) => lines.push(msg));
  const opened: RedisClient[] = [];
  beforeEach(() => { lines.length = 0; });
  afterAll(() => opened.forEach((r) => r.disconnect()));

  it('a wrong REDIS_URL (a closed port) gives one warning while ioredis keeps retrying', async () => {
    const port = await closedPort();
    const redis = createRedisConnection(`redis://127.0.0.1:${port}`, warnings);
    opened.push(redis);
    let errors = 0;
    redis.on('error', () => errors++);
    await until(() => errors >= 3);
    expect(lines).toEqual([`redis: connect ECONNREFUSED 127.0.0.1:${port}`]);
  });

  it('an authentication failure is warned about', async () => {
    const url = new URL(redisUrl);
    url.username = 'no-such-user';
    url.password = 'wrong';
    const redis = createRedisConnection(url.toString(), warnings);
    opened.push(redis);
    await until(() => lines.length > 0);
    expect(lines[0]).toMatch(/^redis: WRONGPASS/);
  });

});
