import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from './file-lock';
import { waitFor } from './probe';
import { freePorts, startRedisProcess, stopRedisProcesses, withClient, type RedisProcess } from './redis-process';

export interface StartPrivateSentinelOptions {
  /** An empty folder for the servers' data, configuration, pid and log files. */
  dir: string;
  /** redis-server (it runs the Sentinels too, with --sentinel). */
  binary: string;
  /** Base configuration of the data servers (infra/redis.conf: AOF, noeviction). */
  confPath: string;
  /**
   * The first port to try (default: a random one in 41000-48999, away from the ports other private servers start at:
   * a Sentinel would reconfigure whatever server later takes a dead primary's port); the group takes
   * 1 + replicas + sentinels free ports from there.
   */
  preferredPort?: number;
  replicas?: number;
  sentinels?: number;
  /** Sentinels that must agree the primary is down (default: a majority). */
  quorum?: number;
  masterName?: string;
  /** How long the primary must not answer before a Sentinel thinks it down (default 1000 ms). */
  downAfterMs?: number;
  failoverTimeoutMs?: number;
}

/**
 * A primary, its replicas and Sentinels watching them, on free loopback ports: what a fault test or bench needs to kill
 * the primary and watch the system follow the failover. `url` is the REDIS_URL (redis+sentinel://) that reaches it.
 */
export class PrivateSentinelGroup {
  constructor(
    readonly dir: string,
    readonly masterName: string,
    /** The data servers as started: [primary, ...replicas]; after a failover the primary is another one. */
    readonly servers: RedisProcess[],
    readonly sentinels: RedisProcess[],
  ) {}

  get url(): string {
    return `redis+sentinel://${this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${this.masterName}`;
  }

  /** The data server the Sentinels now call the primary (asking each in turn until one answers). */
  async primary(): Promise<RedisProcess> {
    for (const sentinel of this.sentinels.filter((s) => isProcessAlive(s.pid))) {
      const answer = await withClient(`redis://127.0.0.1:${sentinel.port}`, async (c) => {
        const reply = (await c.call('SENTINEL', 'get-master-addr-by-name', this.masterName)) as [string, string] | null;
        return reply ? { ok: true, value: Number(reply[1]) } : { ok: false, reason: 'no master' };
      });
      const server = answer.ok ? this.servers.find((s) => s.port === answer.value) : undefined;
      if (server) return server;
    }
    throw new Error(`no Sentinel of ${this.dir} names a primary for ${this.masterName}`);
  }

  /** Waits until the Sentinels name a primary other than `old` and it answers as a primary; returns it. */
  async waitForFailover(old: RedisProcess, timeoutMs = 30_000): Promise<RedisProcess> {
    try {
      return await this.promotedOtherThan(old, timeoutMs);
    } catch (e) {
      // What the Sentinels decided (their events are the log lines marked '#'), for whoever reads the failure.
      const events = this.sentinels.map((s) => `${s.name}:\n${tail(s.log, 12)}`).join('\n');
      throw new Error(`${(e as Error).message}\n${events}`);
    }
  }

  private async promotedOtherThan(old: RedisProcess, timeoutMs: number): Promise<RedisProcess> {
    return waitFor(`failover away from ${old.name} (port ${old.port})`, async () => {
      let next: RedisProcess;
      try {
        next = await this.primary();
      } catch (e) {
        return { ok: false, reason: (e as Error).message };
      }
      if (next.port === old.port) return { ok: false, reason: `the Sentinels still name ${old.name}` };
      return withClient(`redis://127.0.0.1:${next.port}`, async (c) => {
        const role = ((await c.call('ROLE')) as [string])[0];
        return role === 'master' ? { ok: true, value: next } : { ok: false, reason: `${next.name} is still a ${role}` };
      });
    }, timeoutMs);
  }

  /**
   * Cuts the replication links of the current primary: its replication user is switched off and its replicas'
   * connections closed, so they cannot sync again while it goes on taking writes. Killing the primary after this is
   * the failover that loses data: whatever it acknowledged since the cut never reached the replica that is promoted.
   */
  async cutReplication(): Promise<RedisProcess> {
    const primary = await this.primary();
    const done = await withClient(`redis://127.0.0.1:${primary.port}`, async (c) => {
      await c.call('ACL', 'SETUSER', REPLICATION_USER, 'off');
      await c.call('CLIENT', 'KILL', 'USER', REPLICATION_USER);
      return { ok: true, value: true };
    });
    if (!done.ok) throw new Error(`cutting replication on ${primary.name}: ${done.reason}`);
    for (const replica of this.servers.filter((s) => s !== primary && isProcessAlive(s.pid))) {
      await waitFor(`${replica.name} to lose its link to ${primary.name}`, () => withClient(`redis://127.0.0.1:${replica.port}`, async (c) => {
        const info = await c.info('replication');
        return /master_link_status:down/.test(info) ? { ok: true, value: true } : { ok: false, reason: 'link still up' };
      }), 5_000);
    }
    return primary;
  }

  /** SIGKILLs a data server (the primary, for a failover). */
  kill(server: RedisProcess): void {
    if (isProcessAlive(server.pid)) process.kill(server.pid, 'SIGKILL');
  }

  /** Stops every server and Sentinel of the group that is still running. */
  async stop(): Promise<void> {
    await stopRedisProcesses([...this.sentinels, ...this.servers]);
  }
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((l) => l.includes(' # ')).slice(-lines).join('\n');
  } catch (e) {
    return `(${(e as Error).message})`;
  }
}

/** The user replicas authenticate as (any data server may become the primary, so each has it). */
const REPLICATION_USER = 'replication';

/**
 * Starts a primary, `replicas` replicas (default 1) and `sentinels` Sentinels (default 3) from one redis-server
 * binary, and waits until the replicas are in sync and every Sentinel knows the replicas and the other Sentinels, so
 * that a failover can start as soon as the primary dies. On a failure part way, what was started is stopped.
 */
export async function startPrivateSentinelGroup(opts: StartPrivateSentinelOptions): Promise<PrivateSentinelGroup> {
  const replicaCount = opts.replicas ?? 1;
  const sentinelCount = opts.sentinels ?? 3;
  const quorum = opts.quorum ?? Math.floor(sentinelCount / 2) + 1;
  const masterName = opts.masterName ?? 'sqlsweep';
  mkdirSync(opts.dir, { recursive: true });
  const ports = await freePorts(1 + replicaCount + sentinelCount, opts.preferredPort ?? 41_000 + Math.floor(Math.random() * 8_000));
  const started: RedisProcess[] = [];
  const servers: RedisProcess[] = [];
  const sentinels: RedisProcess[] = [];
  try {
    const [primaryPort, ...rest] = ports;
    const replicationPassword = randomBytes(12).toString('hex');
    const dataServer = async (name: string, port: number, args: string[]) => {
      const dir = join(opts.dir, name);
      mkdirSync(dir, { recursive: true });
      // redis-server 7.0 declares a `user` twice when it comes from the command line or after an `include` ("Duplicate
      // user found"), so the base configuration is copied into the server's own file.
      const confFile = join(dir, 'redis.conf');
      writeFileSync(confFile, [
        readFileSync(opts.confPath, 'utf8'),
        `user ${REPLICATION_USER} on >${replicationPassword} +psync +replconf +ping +sync`,
        `masteruser ${REPLICATION_USER}`,
        `masterauth ${replicationPassword}`,
        '',
      ].join('\n'));
      const p = await startRedisProcess({ binary: opts.binary, dir, name, port, confFile, args });
      started.push(p);
      servers.push(p);
      return p;
    };
    await dataServer('primary', primaryPort, []);
    for (let i = 0; i < replicaCount; i++) await dataServer(`replica-${i + 1}`, rest[i], ['--replicaof', '127.0.0.1', String(primaryPort)]);
    for (let i = 0; i < sentinelCount; i++) {
      const name = `sentinel-${i + 1}`;
      const dir = join(opts.dir, name);
      mkdirSync(dir, { recursive: true });
      const confFile = join(dir, 'sentinel.conf');
      writeFileSync(confFile, [
        `sentinel monitor ${masterName} 127.0.0.1 ${primaryPort} ${quorum}`,
        `sentinel down-after-milliseconds ${masterName} ${opts.downAfterMs ?? 1_000}`,
        `sentinel failover-timeout ${masterName} ${opts.failoverTimeoutMs ?? 10_000}`,
        `sentinel parallel-syncs ${masterName} 1`,
        '',
      ].join('\n'));
      const p = await startRedisProcess({ binary: opts.binary, dir, name, port: rest[replicaCount + i], confFile, args: [], sentinel: true });
      started.push(p);
      sentinels.push(p);
    }
    const group = new PrivateSentinelGroup(opts.dir, masterName, servers, sentinels);
    await waitUntilWatched(group, replicaCount, sentinelCount);
    return group;
  } catch (e) {
    await stopRedisProcesses(started);
    throw e;
  }
}

async function waitUntilWatched(group: PrivateSentinelGroup, replicas: number, sentinels: number): Promise<void> {
  for (const replica of group.servers.slice(1)) {
    await waitFor(`${replica.name} in sync with the primary`, () => withClient(`redis://127.0.0.1:${replica.port}`, async (c) => {
      const info = await c.info('replication');
      return /master_link_status:up/.test(info) ? { ok: true, value: true } : { ok: false, reason: 'master link down' };
    }), 15_000);
  }
  for (const sentinel of group.sentinels) {
    await waitFor(`${sentinel.name} knowing ${replicas} replica(s) and ${sentinels - 1} other Sentinel(s)`, () => withClient(`redis://127.0.0.1:${sentinel.port}`, async (c) => {
      const known = (await c.call('SENTINEL', 'replicas', group.masterName)) as unknown[];
      const others = (await c.call('SENTINEL', 'sentinels', group.masterName)) as unknown[];
      return known.length >= replicas && others.length >= sentinels - 1
        ? { ok: true, value: true }
        : { ok: false, reason: `knows ${known.length} replica(s), ${others.length} Sentinel(s)` };
    }), 20_000);
  }
}
