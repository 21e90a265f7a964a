import { join, resolve } from 'node:path';
import { canUseApt, aptInstall } from './services/apt';
import {
  debianPostgresBinDirs,
  findExecutable,
  findPostgresBinaries,
  pathDirectories,
  redisServerVersion,
} from './services/binaries';
import { withFileLock } from './services/file-lock';
import { databaseOf, ensureDatabase, withDatabase } from './services/postgres-database';
import { reusableEmbeddedPostgres, startEmbeddedServer, stopEmbeddedServer } from './services/private-embedded';
import {
  reusablePrivatePostgres,
  startPrivatePostgres,
  stopPrivatePostgres,
  type PrivatePostgres,
} from './services/private-postgres';
import { reusablePrivateRedis, startPrivateRedis, stopPrivateRedis, type PrivateRedis } from './services/private-redis';
import { describeError, probePostgres, probeRedis, versionAtLeast } from './services/probe';
import { describeRequired, enforceRedisSettings, redactUrl } from './services/redis-settings';

export interface ServiceEndpoints {
  redisUrl: string;
  databaseUrl: string;
  /** Why this Redis was chosen, in words (printed, and written to .sqlsweep/services.json). */
  redisSource: string;
  postgresSource: string;
}

export interface EnsureServicesOptions {
  projectDir: string;
  redis?: boolean;
  postgres?: boolean;
  /** Fall back to embedded PGlite when no real Postgres can be had (the demo allows it, tests do not). */
  allowEmbeddedPostgres?: boolean;
  /** REDIS_URL, DATABASE_URL, SQLSWEEP_EMBEDDED_PG and PATH are read from here; defaults to process.env. */
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
  // Seams for tests, which must never touch the machine's own servers: where to look for an
  // already-running server, which ports private servers prefer, where binaries are searched.
  defaultRedisUrl?: string;
  defaultPostgresUrl?: string;
  privateRedisPort?: number;
  privatePostgresPort?: number;
  embeddedPostgresPort?: number;
  /** Binary search path; defaults to PATH plus Debian's /usr/lib/postgresql/<major>/bin. */
  searchDirs?: string[];
  /** May apt-get install missing servers (Debian/Ubuntu, root only). Default true. */
  allowAptInstall?: boolean;
}

export const APP_DATABASE = 'sqlsweep';
export const MIN_REDIS_VERSION = '6.2';
export const SERVICES_DIR = join('.sqlsweep', 'services');
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const PRIVATE_REDIS_PORT = 16379;
export const PRIVATE_POSTGRES_PORT = 15432;
export const EMBEDDED_POSTGRES_PORT = 15433;
export const REDIS_CONF = resolve(__dirname, 'redis.conf');

interface Context {
  servicesDir: string;
  env: Record<string, string | undefined>;
  log: (line: string) => void;
  searchDirs: string[];
  allowApt: boolean;
}

/**
 * Makes Redis and Postgres available and says which were chosen and why. For each service, in order:
 * the URL in REDIS_URL / DATABASE_URL if reachable; a server already on 127.0.0.1 at the default port;
 * a private server from binaries on PATH in .sqlsweep/services/ (kept running, reused by later calls);
 * apt-get install then a private server (Debian/Ubuntu as root); for Postgres, embedded PGlite when
 * allowed; else an error saying exactly what to run.
 */
export async function ensureServices(opts: EnsureServicesOptions): Promise<ServiceEndpoints> {
  const env = opts.env ?? process.env;
  const ctx: Context = {
    servicesDir: resolve(opts.projectDir, SERVICES_DIR),
    env,
    log: opts.log ?? ((line) => console.log(line)),
    searchDirs: opts.searchDirs ?? [...pathDirectories(env), ...debianPostgresBinDirs()],
    allowApt: opts.allowAptInstall ?? true,
  };
  const redis =
    opts.redis === false
      ? { url: '', source: 'not requested' }
      : await resolveRedis(ctx, opts.defaultRedisUrl ?? DEFAULT_REDIS_URL, opts.privateRedisPort ?? PRIVATE_REDIS_PORT);
  const postgres =
    opts.postgres === false
      ? { url: '', source: 'not requested' }
      : await resolvePostgres(ctx, {
          defaultUrl: opts.defaultPostgresUrl ?? DEFAULT_POSTGRES_URL,
          privatePort: opts.privatePostgresPort ?? PRIVATE_POSTGRES_PORT,
          embeddedPort: opts.embeddedPostgresPort ?? EMBEDDED_POSTGRES_PORT,
          allowEmbedded: opts.allowEmbeddedPostgres ?? false,
        });
  return { redisUrl: redis.url, databaseUrl: postgres.url, redisSource: redis.source, postgresSource: postgres.source };
}

/** Stops the private and embedded servers this project started (never a server it did not start). */
export async function stopPrivateServices(opts: { projectDir: string; env?: Record<string, string | undefined>; searchDirs?: string[] }): Promise<string[]> {
  const servicesDir = resolve(opts.projectDir, SERVICES_DIR);
  const searchDirs = opts.searchDirs ?? [...pathDirectories(opts.env ?? process.env), ...debianPostgresBinDirs()];
  const stopped: string[] = [];
  if (await stopPrivateRedis(join(servicesDir, 'redis'))) stopped.push('redis');
  const binaries = findPostgresBinaries(searchDirs);
  if (binaries && stopPrivatePostgres(join(servicesDir, 'postgres'), binaries, searchDirs)) stopped.push('postgres');
  if (await stopEmbeddedServer(join(servicesDir, 'pglite'))) stopped.push('embedded postgres');
  return stopped;
}

interface Resolved {
  url: string;
  source: string;
}

async function resolveRedis(ctx: Context, defaultUrl: string, privatePort: number): Promise<Resolved> {
  const tried: string[] = [];
  const useRunning = async (url: string, why: string): Promise<Resolved | undefined> => {
    const probe = await probeRedis(url);
    if (!probe.ok) {
      tried.push(`${redactUrl(url)} (${why}): not reachable: ${probe.reason}`);
      return undefined;
    }
    if (!versionAtLeast(probe.value.version, MIN_REDIS_VERSION)) {
      tried.push(`${redactUrl(url)} (${why}): Redis ${probe.value.version} is older than ${MIN_REDIS_VERSION}`);
      return undefined;
    }
    await applyRedisSettings(ctx, url);
    return { url, source: `${why}, Redis ${probe.value.version}` };
  };

  const fromEnv = ctx.env.REDIS_URL;
  if (fromEnv) {
    const chosen = await useRunning(fromEnv, 'REDIS_URL');
    if (chosen) return announce(ctx, 'redis', chosen);
    ctx.log(`redis: not using REDIS_URL: ${tried[tried.length - 1] ?? ''}; looking further`);
  } else {
    tried.push('REDIS_URL: not set');
  }
  const running = await useRunning(defaultUrl, 'already running');
  if (running) return announce(ctx, 'redis', running);

  const dir = join(ctx.servicesDir, 'redis');
  return withFileLock(join(ctx.servicesDir, 'redis.lock'), async () => {
    const reused = await reusablePrivateRedis(dir);
    if (reused) {
      await applyRedisSettings(ctx, reused.url);
      return announce(ctx, 'redis', privateRedisResolved(reused, dir, 'kept running from an earlier call'));
    }
    const start = async (why: string): Promise<Resolved | undefined> => {
      const binary = findExecutable('redis-server', ctx.searchDirs);
      const version = binary ? redisServerVersion(binary) : undefined;
      if (!binary || !version) {
        tried.push('no redis-server on PATH');
        return undefined;
      }
      if (!versionAtLeast(version, MIN_REDIS_VERSION)) {
        tried.push(`${binary} is Redis ${version}, older than ${MIN_REDIS_VERSION}`);
        return undefined;
      }
      try {
        const started = await startPrivateRedis({ dir, binary, confPath: REDIS_CONF, preferredPort: privatePort });
        return privateRedisResolved(started, dir, `${why}: ${binary} (Redis ${version}) with infra/redis.conf`);
      } catch (error) {
        tried.push(`starting ${binary}: ${describeError(error)}`);
        return undefined;
      }
    };
    const started = await start('started a private server, nothing was reachable');
    if (started) return announce(ctx, 'redis', started);
    if (ctx.allowApt && canUseApt(ctx)) {
      try {
        aptInstall(['redis-server'], ctx);
        // the package may have started the system service itself
        const system = await useRunning(defaultUrl, 'installed redis-server with apt-get, its service is running');
        if (system) return announce(ctx, 'redis', system);
        const installed = await start('installed redis-server with apt-get and started a private server');
        if (installed) return announce(ctx, 'redis', installed);
      } catch (error) {
        tried.push(describeError(error));
      }
    }
    throw new Error(
      [
        `No usable Redis (>= ${MIN_REDIS_VERSION}). Tried:`,
        ...tried.map((line) => `  - ${line}`),
        'Do one of these, then run the command again:',
        '  sudo apt-get install -y redis-server        # Debian/Ubuntu: sqlsweep then starts its own server',
        '  brew install redis                           # macOS',
        `  export REDIS_URL=redis://HOST:PORT           # any Redis >= ${MIN_REDIS_VERSION} (${describeRequired()})`,
      ].join('\n'),
    );
  });
}

function privateRedisResolved(server: PrivateRedis, dir: string, why: string): Resolved {
  return { url: server.url, source: `private redis-server in ${dir}, port ${server.port} (${why})` };
}

async function applyRedisSettings(ctx: Context, url: string): Promise<void> {
  const changes = await enforceRedisSettings(url);
  for (const change of changes) {
    ctx.log(`redis: CONFIG SET ${change.name} ${change.to} (was ${change.from || 'unset'}) on ${redactUrl(url)}`);
  }
}

interface PostgresChoice {
  defaultUrl: string;
  privatePort: number;
  embeddedPort: number;
  allowEmbedded: boolean;
}

async function resolvePostgres(ctx: Context, choice: PostgresChoice): Promise<Resolved> {
  const embeddedDir = join(ctx.servicesDir, 'pglite');
  if (ctx.env.SQLSWEEP_EMBEDDED_PG === '1') {
    return announce(ctx, 'postgres', await useEmbedded(embeddedDir, choice.embeddedPort, 'SQLSWEEP_EMBEDDED_PG=1'));
  }
  const tried: string[] = [];
  const useRunning = async (url: string, why: string): Promise<Resolved | undefined> => {
    const probe = await probePostgres(url);
    if (!probe.ok) {
      tried.push(`${redactUrl(url)} (${why}): not reachable: ${probe.reason}`);
      return undefined;
    }
    if (await ensureDatabase(url, databaseOf(url))) ctx.log(`postgres: created database ${databaseOf(url)}`);
    return { url, source: `${why}, Postgres ${probe.value.serverVersion}` };
  };

  const fromEnv = ctx.env.DATABASE_URL;
  if (fromEnv) {
    const chosen = await useRunning(fromEnv, 'DATABASE_URL');
    if (chosen) return announce(ctx, 'postgres', chosen);
    ctx.log(`postgres: not using DATABASE_URL: ${tried[tried.length - 1] ?? ''}; looking further`);
  } else {
    tried.push('DATABASE_URL: not set');
  }
  const running = await useRunning(withDatabase(choice.defaultUrl, APP_DATABASE), 'already running');
  if (running) return announce(ctx, 'postgres', running);

  const dir = join(ctx.servicesDir, 'postgres');
  const resolved = await withFileLock(join(ctx.servicesDir, 'postgres.lock'), async () => {
    const reused = await reusablePrivatePostgres(dir);
    if (reused) return privatePostgresResolved(ctx, reused, dir, 'kept running from an earlier call');
    const start = async (why: string): Promise<Resolved | undefined> => {
      const binaries = findPostgresBinaries(ctx.searchDirs);
      if (!binaries) {
        tried.push(`no initdb and pg_ctl on PATH or in /usr/lib/postgresql/*/bin`);
        return undefined;
      }
      try {
        const started = await startPrivatePostgres({
          dir,
          binaries,
          preferredPort: choice.privatePort,
          searchDirs: ctx.searchDirs,
          log: ctx.log,
        });
        return privatePostgresResolved(ctx, started, dir, `${why}: ${binaries.binDir}`);
      } catch (error) {
        tried.push(`starting a private server from ${binaries.binDir}: ${describeError(error)}`);
        return undefined;
      }
    };
    const started = await start('started a private server, nothing was reachable');
    if (started) return started;
    if (ctx.allowApt && canUseApt(ctx)) {
      try {
        aptInstall(['postgresql'], ctx);
        const system = await useRunning(
          withDatabase(choice.defaultUrl, APP_DATABASE),
          'installed postgresql with apt-get, its service is running',
        );
        if (system) return system;
        ctx.searchDirs = [...ctx.searchDirs, ...debianPostgresBinDirs()];
        const installed = await start('installed postgresql with apt-get and started a private server');
        if (installed) return installed;
      } catch (error) {
        tried.push(describeError(error));
      }
    }
    return undefined;
  });
  if (resolved) return announce(ctx, 'postgres', resolved);
  if (choice.allowEmbedded) {
    return announce(ctx, 'postgres', await useEmbedded(embeddedDir, choice.embeddedPort, 'no real Postgres could be had'));
  }
  throw new Error(
    [
      'No usable Postgres. Tried:',
      ...tried.map((line) => `  - ${line}`),
      'Do one of these, then run the command again:',
      '  sudo apt-get install -y postgresql           # Debian/Ubuntu: sqlsweep then starts its own server',
      '  brew install postgresql@16                   # macOS',
      '  export DATABASE_URL=postgres://USER@HOST:PORT/sqlsweep',
      '  export SQLSWEEP_EMBEDDED_PG=1                # embedded PGlite, for the demo only',
    ].join('\n'),
  );
}

async function privatePostgresResolved(ctx: Context, server: PrivatePostgres, dir: string, why: string): Promise<Resolved> {
  const url = withDatabase(server.maintenanceUrl, APP_DATABASE);
  if (await ensureDatabase(url, APP_DATABASE)) ctx.log(`postgres: created database ${APP_DATABASE}`);
  return { url, source: `private postgres in ${dir}, port ${server.port} (${why})` };
}

async function useEmbedded(dir: string, port: number, why: string): Promise<Resolved> {
  const server = await withFileLock(`${dir}.lock`, async () => (await reusableEmbeddedPostgres(dir)) ?? startEmbeddedServer(dir, port));
  const how = server.reused ? 'kept running from an earlier call' : 'started';
  // PGlite has one database: the name in the URL is ignored, so the URL names the one there is.
  return { url: server.url, source: `embedded PGlite in ${dir}, port ${server.port} (${why}; ${how})` };
}

function announce(ctx: Context, service: 'redis' | 'postgres', resolved: Resolved): Resolved {
  ctx.log(`${service}: ${redactUrl(resolved.url)} — ${resolved.source}`);
  return resolved;
}
