// ensureServices against the real binaries of this machine, without touching its own Redis and
// Postgres: the "already running" probes point at free ports, so every path under test starts
// private servers on free ports in a temporary project folder, and stops them afterwards.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { Client } from 'pg';
import { migrateToLatest } from '@sqlsweep/db';
import { ensureServices, stopPrivateServices, type EnsureServicesOptions } from './services';
import { pathDirectories } from './services/binaries';
import { findFreePort, isPortFree, readServerState } from './services/server-state';

jest.setTimeout(120_000);

const randomBase = () => 20_000 + Math.floor(Math.random() * 20_000);

let projectDir: string;
let seams: EnsureServicesOptions;
const lines: string[] = [];

beforeAll(async () => {
  projectDir = mkdtempSync(join(tmpdir(), 'sqlsweep-services-'));
  chmodSync(projectDir, 0o755); // the postgres OS user must reach the cluster folder when we run as root
  const nothingRedis = await findFreePort(randomBase());
  const nothingPostgres = await findFreePort(randomBase());
  seams = {
    projectDir,
    env: { PATH: process.env.PATH },
    log: (line) => lines.push(line),
    defaultRedisUrl: `redis://127.0.0.1:${nothingRedis}`,
    defaultPostgresUrl: `postgres://postgres@127.0.0.1:${nothingPostgres}/postgres`,
    privateRedisPort: await findFreePort(randomBase()),
    privatePostgresPort: await findFreePort(randomBase()),
    embeddedPostgresPort: await findFreePort(randomBase()),
    allowAptInstall: false,
  };
});

afterAll(async () => {
  await stopPrivateServices({ projectDir, env: { PATH: process.env.PATH } });
  rmSync(projectDir, { recursive: true, force: true });
});

beforeEach(() => {
  lines.length = 0;
});

describe('ensureServices with nothing running on the probed ports', () => {
  let first: Awaited<ReturnType<typeof ensureServices>>;

  it('starts a private Redis with the required settings and a private Postgres with the app database', async () => {
    first = await ensureServices(seams);

    expect(first.redisSource).toContain('private redis-server');
    expect(first.redisUrl).toBe(`redis://127.0.0.1:${readServerState(join(projectDir, '.sqlsweep/services/redis'))?.port}`);
    expect(first.redisUrl).not.toContain(':6379');
    const redis = new Redis(first.redisUrl);
    try {
      expect(await redis.ping()).toBe('PONG');
      expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await redis.config('GET', 'appendfsync')).toEqual(['appendfsync', 'everysec']);
      expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    } finally {
      redis.disconnect();
    }

    expect(first.postgresSource).toContain('private postgres');
    expect(first.databaseUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/sqlsweep$/);
    expect(first.databaseUrl).not.toContain(':5432/');
    const pg = new Client({ connectionString: first.databaseUrl });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ db: string }>('SELECT current_database() AS db');
      expect(rows[0]?.db).toBe('sqlsweep');
    } finally {
      await pg.end();
    }
    expect(existsSync(join(projectDir, '.sqlsweep/services/postgres/data/PG_VERSION'))).toBe(true);
    expect(lines.filter((l) => l.startsWith('redis: redis://'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('postgres: postgres://'))).toHaveLength(1);
  });

  it('reuses the private servers on a later call', async () => {
    const again = await ensureServices(seams);
    expect(again.redisUrl).toBe(first.redisUrl);
    expect(again.databaseUrl).toBe(first.databaseUrl);
    expect(again.redisSource).toContain('kept running from an earlier call');
    expect(again.postgresSource).toContain('kept running from an earlier call');
  });

  it('prefers a reachable REDIS_URL / DATABASE_URL and fixes Redis settings that differ, saying so', async () => {
    const redis = new Redis(first.redisUrl);
    await redis.config('SET', 'maxmemory-policy', 'allkeys-lru');
    await redis.config('SET', 'appendfsync', 'always');
    redis.disconnect();

    const chosen = await ensureServices({
      ...seams,
      env: { PATH: process.env.PATH, REDIS_URL: first.redisUrl, DATABASE_URL: first.databaseUrl },
    });
    expect(chosen.redisSource).toMatch(/^REDIS_URL/);
    expect(chosen.postgresSource).toMatch(/^DATABASE_URL/);
    expect(lines).toContain(`redis: CONFIG SET maxmemory-policy noeviction (was allkeys-lru) on ${first.redisUrl}`);
    expect(lines).toContain(`redis: CONFIG SET appendfsync everysec (was always) on ${first.redisUrl}`);

    const check = new Redis(first.redisUrl);
    expect(await check.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    check.disconnect();
  });

  it('ensure-services.ts writes what it chose to .sqlsweep/services.json and prints it', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', '@swc-node/register', join(__dirname, 'ensure-services.ts'), '--project-dir', projectDir],
      {
        cwd: resolve(__dirname, '..'),
        env: { PATH: process.env.PATH, REDIS_URL: first.redisUrl, DATABASE_URL: first.databaseUrl },
      },
    );
    const written = JSON.parse(readFileSync(join(projectDir, '.sqlsweep/services.json'), 'utf8'));
    expect(written).toEqual({
      redisUrl: first.redisUrl,
      databaseUrl: first.databaseUrl,
      redisSource: expect.stringMatching(/^REDIS_URL, Redis \d/),
      postgresSource: expect.stringMatching(/^DATABASE_URL, Postgres \d/),
    });
    expect(stdout).toContain(`redis: ${first.redisUrl} — REDIS_URL`);
    expect(stdout).toContain(JSON.stringify(written, null, 2));
  });

  it('falls back past an unreachable REDIS_URL / DATABASE_URL and says why', async () => {
    const dead = await findFreePort(randomBase());
    const chosen = await ensureServices({
      ...seams,
      env: {
        PATH: process.env.PATH,
        REDIS_URL: `redis://127.0.0.1:${dead}`,
        DATABASE_URL: `postgres://postgres@127.0.0.1:${dead}/sqlsweep`,
      },
    });
    expect(chosen.redisUrl).toBe(first.redisUrl);
    expect(chosen.databaseUrl).toBe(first.databaseUrl);
    expect(lines.some((l) => l.startsWith(`redis: not using REDIS_URL: redis://127.0.0.1:${dead}`))).toBe(true);
    expect(lines.some((l) => l.startsWith(`postgres: not using DATABASE_URL: postgres://postgres@127.0.0.1:${dead}`))).toBe(true);
  });

  it('creates a missing database named in DATABASE_URL', async () => {
    const url = first.databaseUrl.replace(/\/sqlsweep$/, '/sqlsweep_from_env');
    const chosen = await ensureServices({ ...seams, redis: false, env: { PATH: process.env.PATH, DATABASE_URL: url } });
    expect(chosen.databaseUrl).toBe(url);
    expect(chosen.redisSource).toBe('not requested');
    expect(lines).toContain('postgres: created database sqlsweep_from_env');
  });

  it('stops what it started, and only that', async () => {
    const redisPort = Number(new URL(first.redisUrl).port);
    const postgresPort = Number(new URL(first.databaseUrl).port);
    const stopped = await stopPrivateServices({ projectDir, env: { PATH: process.env.PATH } });
    expect(stopped.sort()).toEqual(['postgres', 'redis']);
    expect(await isPortFree(redisPort)).toBe(true);
    expect(await isPortFree(postgresPort)).toBe(true);
  });
});

describe('ensureServices called twice at once (the lock is a file, so this holds across processes too)', () => {
  it('starts one private server and the other call reuses it', async () => {
    const otherProject = mkdtempSync(join(tmpdir(), 'sqlsweep-services-race-'));
    try {
      const race = { ...seams, projectDir: otherProject, postgres: false, privateRedisPort: await findFreePort(randomBase()) };
      const [a, b] = await Promise.all([ensureServices(race), ensureServices(race)]);
      expect(a.redisUrl).toBe(b.redisUrl);
      const sources = [a.redisSource, b.redisSource].map((source) => source.includes('kept running from an earlier call'));
      expect(sources.sort()).toEqual([false, true]);
    } finally {
      expect(await stopPrivateServices({ projectDir: otherProject, env: { PATH: process.env.PATH } })).toEqual(['redis']);
      rmSync(otherProject, { recursive: true, force: true });
    }
  });
});

describe('ensureServices with no servers and no binaries', () => {
  it('stops with a message saying exactly what to run', async () => {
    const bare = { ...seams, searchDirs: [], env: { PATH: '' } };
    await expect(ensureServices({ ...bare, postgres: false })).rejects.toThrow(
      /No usable Redis \(>= 6\.2\)[\s\S]*no redis-server on PATH[\s\S]*sudo apt-get install -y redis-server[\s\S]*export REDIS_URL=/,
    );
    await expect(ensureServices({ ...bare, redis: false })).rejects.toThrow(
      /No usable Postgres[\s\S]*no initdb and pg_ctl[\s\S]*sudo apt-get install -y postgresql[\s\S]*SQLSWEEP_EMBEDDED_PG=1/,
    );
  });
});

describe('ensureServices with the embedded Postgres fallback', () => {
  it('serves pg over PGlite when allowed and nothing else works, and reuses it', async () => {
    const bare = { ...seams, redis: false, searchDirs: [], env: { PATH: pathDirectories(process.env).join(':') } };
    const first = await ensureServices({ ...bare, allowEmbeddedPostgres: true });
    expect(first.postgresSource).toContain('embedded PGlite');
    expect(first.postgresSource).toContain('no real Postgres could be had');
    const pg = new Client({ connectionString: first.databaseUrl });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ version: string }>('SELECT version()');
      expect(rows[0]?.version).toContain('PGlite');
      // Every migration applies there, the lz4 one keeping pglz on a build without lz4.
      expect(await migrateToLatest(first.databaseUrl)).toContain('20261128100000_stage_result_lz4');
      const compression = await pg.query<{ attcompression: string }>(
        "SELECT attcompression FROM pg_attribute WHERE attrelid = 'stage_results'::regclass AND attname IN ('output', 'trace')");
      expect(compression.rows.map((r) => r.attcompression)).toEqual(['', '']);
    } finally {
      await pg.end();
    }
    const forced = await ensureServices({ ...seams, redis: false, env: { PATH: process.env.PATH, SQLSWEEP_EMBEDDED_PG: '1' } });
    expect(forced.databaseUrl).toBe(first.databaseUrl);
    expect(forced.postgresSource).toContain('SQLSWEEP_EMBEDDED_PG=1; kept running from an earlier call');
    expect(await stopPrivateServices({ projectDir, env: { PATH: process.env.PATH } })).toEqual(['embedded postgres']);
  });
});
