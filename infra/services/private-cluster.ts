import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './probe';
import { freePorts, startRedisProcess, stopRedisProcesses, withClient, type RedisProcess } from './redis-process';

export interface StartPrivateClusterOptions {
  /** An empty folder for the nodes' data, configuration, pid and log files. */
  dir: string;
  /** redis-server and redis-cli (findRedisBinaries). */
  binaries: { server: string; cli: string };
  /** Base configuration of the nodes (infra/redis.conf: AOF, noeviction). */
  confPath: string;
  /** Primaries (default 3, the fewest redis-cli --cluster create accepts); no replicas. */
  primaries?: number;
  /** First port to try (default: a random one in 41000-48999); each node's cluster bus port is its port + 10000. */
  preferredPort?: number;
}

/** A Redis Cluster of primaries on free loopback ports; `url` is the REDIS_URL (redis+cluster://) that reaches it. */
export class PrivateCluster {
  constructor(readonly dir: string, readonly nodes: RedisProcess[]) {}

  get url(): string {
    return `redis+cluster://${this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`;
  }

  async stop(): Promise<void> {
    await stopRedisProcesses(this.nodes);
  }
}

/**
 * Starts `primaries` cluster-enabled redis-servers, joins them with `redis-cli --cluster create` (slots split evenly,
 * no replicas), and waits until every node reports the cluster ok. On a failure part way, what was started is stopped.
 */
export async function startPrivateCluster(opts: StartPrivateClusterOptions): Promise<PrivateCluster> {
  const count = opts.primaries ?? 3;
  mkdirSync(opts.dir, { recursive: true });
  const ports = await freePorts(count, opts.preferredPort ?? 41_000 + Math.floor(Math.random() * 8_000), (p) => [p + 10_000]);
  const nodes: RedisProcess[] = [];
  try {
    for (const [i, port] of ports.entries()) {
      const name = `node-${i + 1}`;
      const dir = join(opts.dir, name);
      mkdirSync(dir, { recursive: true });
      // The node's own file: a cluster node rewrites its configuration (nodes.conf is separate, but CONFIG REWRITE is not).
      const confFile = join(dir, 'redis.conf');
      writeFileSync(confFile, [
        readFileSync(opts.confPath, 'utf8'),
        'cluster-enabled yes',
        `cluster-config-file ${join(dir, 'nodes.conf')}`,
        'cluster-node-timeout 5000',
        `cluster-port ${port + 10_000}`,
        // AOF and RDB would only slow a throw-away test cluster down.
        'appendonly no',
        'save ""',
        '',
      ].join('\n'));
      nodes.push(await startRedisProcess({ binary: opts.binaries.server, dir, name, port, confFile, args: [] }));
    }
    const create = spawnSync(opts.binaries.cli, ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8', timeout: 60_000 });
    if (create.status !== 0) {
      throw new Error(`${opts.binaries.cli} --cluster create failed (exit ${create.status}): ${(create.stderr || create.stdout || '').trim().slice(-2_000)}`);
    }
    for (const node of nodes) {
      await waitFor(`${node.name} (port ${node.port}) to see the cluster ok`, () => withClient(`redis://127.0.0.1:${node.port}`, async (c) => {
        const info = (await c.call('CLUSTER', 'INFO')) as string;
        return /cluster_state:ok/.test(info) ? { ok: true, value: true } : { ok: false, reason: /cluster_state:\w+/.exec(info)?.[0] ?? 'no state' };
      }), 30_000);
    }
    return new PrivateCluster(opts.dir, nodes);
  } catch (e) {
    await stopRedisProcesses(nodes);
    throw e;
  }
}
