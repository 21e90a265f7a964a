import { join } from 'node:path';
import { aptInstall, canUseApt } from './apt';
import { debianPostgresBinDirs, findPostgresBinaries } from './binaries';
import { withFileLock } from './file-lock';
import { databaseOf, ensureDatabase, withDatabase } from './postgres-database';
import { reusableEmbeddedPostgres, startEmbeddedServer } from './private-embedded';
import { reusablePrivatePostgres, startPrivatePostgres, type PrivatePostgres } from './private-postgres';
import { describeError, probePostgres } from './probe';
import { redactUrl } from './redis-settings';
import { announce, type ResolveContext, type Resolved } from './resolve-context';

export const APP_DATABASE = 'sqlsweep';

export interface PostgresChoice {
  defaultUrl: string;
  privatePort: number;
  embeddedPort: number;
  allowEmbedded: boolean;
}

/**
 * DATABASE_URL, then a running server, then a private cluster (reused, started, or installed with apt),
 * then embedded PGlite when allowed, else how to get one. SQLSWEEP_EMBEDDED_PG=1 goes straight to PGlite.
 */
export async function resolvePostgres(ctx: ResolveContext, choice: PostgresChoice): Promise<Resolved> {
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

async function privatePostgresResolved(ctx: ResolveContext, server: PrivatePostgres, dir: string, why: string): Promise<Resolved> {
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
