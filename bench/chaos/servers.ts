/**
 * The chaos benchmark's own Redis (AOF, infra/redis.conf) and Postgres, on free ports in a temporary folder, and
 * the faults done to them: Redis shut down and started again from its AOF, Redis emptied, Postgres stopped as a
 * crash does (`pg_ctl -m immediate`) and started again. The machine's shared servers are never touched.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  debianPostgresBinDirs, findExecutable, findPostgresBinaries, pathDirectories, REDIS_CONF, startPrivatePostgres, startPrivateRedis,
  stopPrivatePostgres, stopPrivateRedis, type PostgresBinaries,
} from '@sqlsweep/infra';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ChaosServers {
  private constructor(
    private readonly root: string,
    private readonly redisBinary: string,
    private readonly postgres: PostgresBinaries,
    private readonly searchDirs: string[],
    readonly redisPort: number,
    readonly postgresPort: number,
  ) {}

  get redisUrl(): string { return `redis://127.0.0.1:${this.redisPort}`; }
  /** The maintenance database `postgres`; each scenario gets a database of its own. */
  get postgresUrl(): string { return `postgres://postgres@127.0.0.1:${this.postgresPort}/postgres`; }
  private get redisDir(): string { return join(this.root, 'redis'); }
  private get postgresDir(): string { return join(this.root, 'postgres'); }

  static async start(log: (line: string) => void): Promise<ChaosServers> {
    const searchDirs = [...pathDirectories(process.env), ...debianPostgresBinDirs()];
    const redisBinary = findExecutable('redis-server', searchDirs);
    const postgres = findPostgresBinaries(searchDirs);
    if (!redisBinary || !postgres) throw new Error('bench chaos needs redis-server and Postgres (initdb, pg_ctl) installed: see README, "Services"');
    const root = mkdtempSync(join(tmpdir(), 'sqlsweep-chaos-'));
    chmodSync(root, 0o755); // as root, Postgres runs as the postgres user, which must reach its folder
    let redisPort: number | undefined;
    try {
      // Ports well away from 6379 and 5432, so that a fault can never reach the machine's own servers.
      redisPort = (await startPrivateRedis({ dir: join(root, 'redis'), binary: redisBinary, confPath: REDIS_CONF, preferredPort: 26_400 })).port;
      const pg = await startPrivatePostgres({ dir: join(root, 'postgres'), binaries: postgres, preferredPort: 25_400, searchDirs, log });
      return new ChaosServers(root, redisBinary, postgres, searchDirs, redisPort, pg.port);
    } catch (e) {
      await stopPrivateRedis(join(root, 'redis'));
      rmSync(root, { recursive: true, force: true });
      throw e;
    }
  }

  /** SIGTERM (Redis writes its AOF and exits), `downMs` with no server, then a new server on the same port from the AOF. */
  async restartRedis(downMs: number): Promise<void> {
    await stopPrivateRedis(this.redisDir);
    await sleep(downMs);
    const started = await startPrivateRedis({ dir: this.redisDir, binary: this.redisBinary, confPath: REDIS_CONF, preferredPort: this.redisPort });
    if (started.port !== this.redisPort) throw new Error(`Redis came back on port ${started.port}, not ${this.redisPort}: the port was taken meanwhile`);
  }

  /** FLUSHALL: every queue, job and lock gone, as after a restart of a Redis without persistence. */
  async flushRedis(): Promise<void> {
    const redis = new Redis(this.redisUrl, { maxRetriesPerRequest: 3 });
    try {
      await redis.flushall();
    } finally {
      redis.disconnect();
    }
  }

  /**
   * Loses the keys of one BullMQ prefix one at a time, as eviction does, while the run goes on adding jobs: `passes`
   * passes over the keys there are at each pass's start, in random order, about `pauseMs` between keys. Jobs end up
   * lost in part (data without a place in the queue, a place without data) as well as whole. Returns the keys removed.
   */
  async loseKeysOneByOne(prefix: string, passes: number, pauseMs: number): Promise<number> {
    const redis = new Redis(this.redisUrl, { maxRetriesPerRequest: 3 });
    let removed = 0;
    try {
      for (let pass = 0; pass < passes; pass++) {
        const keys: string[] = [];
        for await (const batch of redis.scanStream({ match: `${prefix}:*`, count: 1000 }) as AsyncIterable<string[]>) keys.push(...batch);
        for (let i = keys.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [keys[i], keys[j]] = [keys[j], keys[i]];
        }
        for (const key of keys) {
          removed += await redis.unlink(key);
          await sleep(pauseMs);
        }
      }
    } finally {
      redis.disconnect();
    }
    return removed;
  }

  /** `pg_ctl stop -m immediate` (no shutdown checkpoint: recovery from WAL at start), `downMs`, then start on the same port. */
  async restartPostgres(downMs: number): Promise<void> {
    stopPrivatePostgres(this.postgresDir, this.postgres, this.searchDirs, 'immediate');
    await sleep(downMs);
    const started = await startPrivatePostgres({ dir: this.postgresDir, binaries: this.postgres, preferredPort: this.postgresPort, searchDirs: this.searchDirs, log: () => undefined });
    if (started.port !== this.postgresPort) throw new Error(`Postgres came back on port ${started.port}, not ${this.postgresPort}: the port was taken meanwhile`);
  }

  async stop(): Promise<void> {
    await stopPrivateRedis(this.redisDir).catch(() => false);
    try {
      stopPrivatePostgres(this.postgresDir, this.postgres, this.searchDirs, 'immediate');
    } finally {
      rmSync(this.root, { recursive: true, force: true });
    }
  }
}
