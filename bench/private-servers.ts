/**
 * A benchmark's own Redis (infra/redis.conf: AOF, noeviction) and, unless `postgres: false`, its own Postgres (initdb
 * in a temporary folder), on free ports well away from 6379 and 5432, as bench/chaos's servers: no benchmark loads,
 * fills or reconfigures the machine's shared servers. stop() ends the servers it started (by the pids recorded when
 * they started) and removes their folder. A benchmark that exits without it (process.exit after a failure, SIGINT,
 * SIGTERM) still ends them as it exits: Redis by SIGKILL, Postgres by `pg_ctl stop -m immediate`, nothing kept.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  debianPostgresBinDirs, findExecutable, findPostgresBinaries, pathDirectories, REDIS_CONF, startPrivatePostgres, startPrivateRedis,
  stopPrivatePostgres, stopPrivateRedis,
} from '@sqlsweep/infra';

export interface PrivateServers {
  redisUrl: string;
  /** The maintenance database `postgres` (createTestDatabase(postgresUrl) makes the benchmark's own); undefined with `postgres: false`. */
  postgresUrl: string | undefined;
  /** For the result file: the benchmark ran on these servers, not the machine's. */
  description: string;
  stop(): Promise<void>;
}

interface Options { name: string; postgres?: boolean; log?: (line: string) => void }

export async function startPrivateServers(opts: Options & { postgres?: true }): Promise<PrivateServers & { postgresUrl: string }>;
export async function startPrivateServers(opts: Options): Promise<PrivateServers>;
export async function startPrivateServers(opts: Options): Promise<PrivateServers> {
  const withPostgres = opts.postgres ?? true;
  const searchDirs = [...pathDirectories(process.env), ...debianPostgresBinDirs()];
  const redisBinary = findExecutable('redis-server', searchDirs);
  const postgres = withPostgres ? findPostgresBinaries(searchDirs) : undefined;
  if (!redisBinary || (withPostgres && !postgres)) {
    throw new Error(`bench ${opts.name} starts its own redis-server${withPostgres ? ' and Postgres (initdb, pg_ctl)' : ''}: install them (README, "Services")`);
  }
  const root = mkdtempSync(join(tmpdir(), `sqlsweep-servers-${opts.name}-`));
  chmodSync(root, 0o755); // as root, Postgres runs as the postgres user, which must reach its folder
  const redisDir = join(root, 'redis');
  const postgresDir = join(root, 'postgres');
  let redisEnded = false;
  let stopped = false;
  // Synchronous, as an 'exit' listener must be.
  const endNow = () => {
    if (stopped) return;
    stopped = true;
    // The pid file of the redis-server started here (also when it never answered); Redis removes it as it exits.
    const redisPid = redisEnded ? NaN : Number.parseInt(readIfThere(join(redisDir, 'redis.pid')), 10);
    if (Number.isInteger(redisPid) && readIfThere(`/proc/${redisPid}/comm`).startsWith('redis-server')) {
      try {
        process.kill(redisPid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      if (postgres) stopPrivatePostgres(postgresDir, postgres, searchDirs, 'immediate');
    } catch (e) {
      process.stderr.write(`bench ${opts.name}: could not stop its Postgres in ${postgresDir}: ${(e as Error).message}\n`);
    }
    rmSync(root, { recursive: true, force: true });
  };
  const onSignal = () => process.exit(130);
  const stop = async () => {
    if (!stopped) {
      redisEnded = await stopPrivateRedis(redisDir).catch(() => false); // SIGTERM, then waits for it to go
      endNow();
    }
    process.off('exit', endNow).off('SIGINT', onSignal).off('SIGTERM', onSignal);
  };
  process.on('exit', endNow).once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const redis = await startPrivateRedis({ dir: redisDir, binary: redisBinary, confPath: REDIS_CONF, preferredPort: 26_500 });
    const pg = postgres
      ? await startPrivatePostgres({ dir: postgresDir, binaries: postgres, preferredPort: 25_500, searchDirs, log: opts.log ?? (() => undefined) })
      : undefined;
    return {
      redisUrl: redis.url,
      postgresUrl: pg?.maintenanceUrl,
      description: `own servers started for this run (bench/private-servers.ts), not the machine's shared ones: Redis on port ${redis.port} (infra/redis.conf)${pg ? `, Postgres on port ${pg.port} (initdb defaults)` : ''}`,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
