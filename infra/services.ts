import { join, resolve } from 'node:path';
import { debianPostgresBinDirs, findPostgresBinaries, pathDirectories } from './services/binaries';
import { stopEmbeddedServer } from './services/private-embedded';
import { stopPrivatePostgres } from './services/private-postgres';
import { stopPrivateRedis } from './services/private-redis';
import type { ResolveContext } from './services/resolve-context';
import { resolvePostgres } from './services/resolve-postgres';
import { resolveRedis } from './services/resolve-redis';

export { APP_DATABASE } from './services/resolve-postgres';
export { MIN_REDIS_VERSION, REDIS_CONF } from './services/resolve-redis';

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

export const SERVICES_DIR = join('.sqlsweep', 'services');
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const PRIVATE_REDIS_PORT = 16379;
export const PRIVATE_POSTGRES_PORT = 15432;
export const EMBEDDED_POSTGRES_PORT = 15433;

/**
 * Makes Redis and Postgres available and says which were chosen and why. For each service, in order:
 * the URL in REDIS_URL / DATABASE_URL if reachable; a server already on 127.0.0.1 at the default port;
 * a private server from binaries on PATH in .sqlsweep/services/ (kept running, reused by later calls);
 * apt-get install then a private server (Debian/Ubuntu as root); for Postgres, embedded PGlite when
 * allowed; else an error saying exactly what to run.
 */
export async function ensureServices(opts: EnsureServicesOptions): Promise<ServiceEndpoints> {
  const env = opts.env ?? process.env;
  const ctx: ResolveContext = {
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
