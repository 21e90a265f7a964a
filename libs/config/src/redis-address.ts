/**
 * Where a process finds Redis, from REDIS_URL. Three forms:
 * - `redis://[[user]:password@]host:port[/db]` or `rediss://…`: one server (what ioredis reads itself);
 * - `redis+sentinel://[[user]:password@]host:port[,host:port…]/<master name>[/db][?sentinelPassword=…]`: the primary
 *   that these Sentinels name; every connection asks them again after a failover. The password is the data servers';
 * - `redis+cluster://[[user]:password@]host:port[,host:port…]`: a Redis Cluster, reached from these seed nodes.
 */
export type RedisAddress =
  | { kind: 'server'; url: string }
  | { kind: 'sentinel'; sentinels: RedisNode[]; name: string; db: number; username?: string; password?: string; sentinelPassword?: string }
  | { kind: 'cluster'; nodes: RedisNode[]; username?: string; password?: string };

export interface RedisNode { host: string; port: number }

export const redisUrlForms = [
  'redis://host:port[/db]',
  'rediss://host:port[/db]',
  'redis+sentinel://host:port[,host:port…]/<master name>[/db]',
  'redis+cluster://host:port[,host:port…]',
];

/** Why `url` is not a Redis address this system reads, or undefined when it is. */
export function redisUrlProblem(url: string): string | undefined {
  try {
    parseRedisUrl(url);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Reads REDIS_URL (any of the forms above); throws naming what is wrong with it. */
export function parseRedisUrl(url: string): RedisAddress {
  const scheme = /^([a-z+]+):\/\//.exec(url)?.[1];
  if (scheme === 'redis' || scheme === 'rediss') return { kind: 'server', url };
  if (scheme !== 'redis+sentinel' && scheme !== 'redis+cluster') {
    throw new Error(`must be a URL of one of the forms ${redisUrlForms.join(', ')}`);
  }
  const m = /^[a-z+]+:\/\/(?:([^@/]*)@)?([^/?]+)(\/[^?]*)?(?:\?(.*))?$/.exec(url);
  if (!m) throw new Error(`${scheme}:// needs hosts: ${scheme}://host:port[,host:port…]`);
  const [, auth, hostList, path = '', query = ''] = m;
  const credentials = readCredentials(auth);
  const nodes = hostList.split(',').map((h) => readNode(h, scheme === 'redis+sentinel' ? 26379 : 6379));
  const params = new URLSearchParams(query);
  const known = scheme === 'redis+sentinel' ? ['sentinelPassword'] : [];
  const unknown = [...params.keys()].filter((k) => !known.includes(k));
  if (unknown.length) throw new Error(`${scheme}:// does not take the parameter(s) ${unknown.join(', ')}${known.length ? ` (only ${known.join(', ')})` : ''}`);
  const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (scheme === 'redis+cluster') {
    if (segments.length > 0) throw new Error('redis+cluster:// takes no path: a Redis Cluster has one database');
    return { kind: 'cluster', nodes, ...credentials };
  }
  if (segments.length === 0 || segments.length > 2) {
    throw new Error('redis+sentinel:// needs the master name after the hosts: redis+sentinel://host:port[,host:port…]/<master name>[/db]');
  }
  const [name, dbText = '0'] = segments;
  if (!/^\d+$/.test(dbText)) throw new Error(`redis+sentinel://…/${name}/${dbText}: the database must be a number`);
  const sentinelPassword = params.get('sentinelPassword') ?? undefined;
  return { kind: 'sentinel', sentinels: nodes, name, db: Number(dbText), ...credentials, ...(sentinelPassword ? { sentinelPassword } : {}) };
}

function readCredentials(auth: string | undefined): { username?: string; password?: string } {
  if (auth === undefined || auth === '') return {};
  const colon = auth.indexOf(':');
  if (colon < 0) return { password: decodeURIComponent(auth) };
  const username = decodeURIComponent(auth.slice(0, colon));
  const password = decodeURIComponent(auth.slice(colon + 1));
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

function readNode(text: string, defaultPort: number): RedisNode {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not host:port`);
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (port < 1 || port > 65_535) throw new Error(`"${text}": the port must be 1-65535`);
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}
