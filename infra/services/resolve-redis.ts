import { join, resolve } from 'node:path';
import { aptInstall, canUseApt } from './apt';
import { findExecutable, redisServerVersion } from './binaries';
import { withFileLock } from './file-lock';
import { reusablePrivateRedis, startPrivateRedis, type PrivateRedis } from './private-redis';
import { describeError, probeRedis, versionAtLeast } from './probe';
import { describeRequired, enforceRedisSettings, redactUrl } from './redis-settings';
import { announce, type ResolveContext, type Resolved } from './resolve-context';

export const MIN_REDIS_VERSION = '6.2';
export const REDIS_CONF = resolve(__dirname, '..', 'redis.conf');

/** REDIS_URL, then a running server, then a private one (reused, started, or installed with apt), else how to get one. */
export async function resolveRedis(ctx: ResolveContext, defaultUrl: string, privatePort: number): Promise<Resolved> {
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
  if (fromEnv && !/^rediss?:\/\//.test(fromEnv)) {
    // redis+sentinel:// or redis+cluster:// (parseRedisUrl): several servers that are the operator's to run and tune.
    return announce(ctx, 'redis', { url: fromEnv, source: 'REDIS_URL, a Sentinel or Cluster address: used as given, not probed' });
  }
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

async function applyRedisSettings(ctx: ResolveContext, url: string): Promise<void> {
  const changes = await enforceRedisSettings(url);
  for (const change of changes) {
    ctx.log(`redis: CONFIG SET ${change.name} ${change.to} (was ${change.from || 'unset'}) on ${redactUrl(url)}`);
  }
}
