import { appEnvSchemas, ConfigError, parseEnv } from './index';
import { parseRedisUrl } from './redis-address';

describe('REDIS_URL forms', () => {
  it('leaves a plain server URL to ioredis as it is', () => {
    expect(parseRedisUrl('redis://:pw@10.0.0.5:6380/2')).toEqual({ kind: 'server', url: 'redis://:pw@10.0.0.5:6380/2' });
    expect(parseRedisUrl('rediss://cache.example:6379')).toEqual({ kind: 'server', url: 'rediss://cache.example:6379' });
  });

  it('reads Sentinels, the master name, the database and both passwords', () => {
    expect(parseRedisUrl('redis+sentinel://app:s%40cret@s1:26379,s2:26380,[::1]/mymaster/3?sentinelPassword=sp')).toEqual({
      kind: 'sentinel',
      sentinels: [{ host: 's1', port: 26379 }, { host: 's2', port: 26380 }, { host: '::1', port: 26379 }],
      name: 'mymaster', db: 3, username: 'app', password: 's@cret', sentinelPassword: 'sp',
    });
    expect(parseRedisUrl('redis+sentinel://127.0.0.1:5000/main')).toEqual({ kind: 'sentinel', sentinels: [{ host: '127.0.0.1', port: 5000 }], name: 'main', db: 0 });
  });

  it('reads a cluster\'s seed nodes', () => {
    expect(parseRedisUrl('redis+cluster://:pw@n1:7000,n2')).toEqual({ kind: 'cluster', nodes: [{ host: 'n1', port: 7000 }, { host: 'n2', port: 6379 }], password: 'pw' });
  });

  it.each([
    ['localhost:6379', /one of the forms redis:\/\/host:port/],
    ['redis+sentinel://s1:26379', /needs the master name/],
    ['redis+sentinel://s1:26379/m/x', /database must be a number/],
    ['redis+sentinel://s1:99999/m', /"s1:99999": the port must be 1-65535/],
    ['redis+sentinel://s1:26379,/m', /"" is not host:port/],
    ['redis+sentinel://s1/m?password=x', /does not take the parameter\(s\) password \(only sentinelPassword\)/],
    ['redis+cluster://n1:7000/0', /takes no path/],
  ])('refuses %s, saying why', (url, why) => {
    expect(() => parseRedisUrl(url)).toThrow(why);
  });

  it('is checked with the rest of the environment, naming REDIS_URL', () => {
    let error: unknown;
    try {
      parseEnv(appEnvSchemas.worker, { REDIS_URL: 'redis+sentinel://s1:26379' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([expect.stringMatching(/^REDIS_URL: redis\+sentinel:\/\/ needs the master name/)]);
    expect(parseEnv(appEnvSchemas.orchestrator, { REDIS_URL: 'redis+sentinel://s1,s2/mymaster' }).REDIS_URL).toBe('redis+sentinel://s1,s2/mymaster');
  });
});
