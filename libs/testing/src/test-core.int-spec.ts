import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { createTestCore, testRedisUrl, useTestCore, type TestCore, type TestCoreSettings } from './test-core';

/** The smallest thing createTestCore can build: it keeps its settings and says whether it was closed. */
class SettingsHolder {
  closed = false;
  constructor(readonly settings: TestCoreSettings & { corpusDir?: string }) {}
  async close(): Promise<void> {
    this.closed = true;
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const admin = new Client({ connectionString: (process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres').replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  try {
    return Boolean((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount);
  } finally {
    await admin.end();
  }
}

describe('createTestCore', () => {
  it('builds the core on a fresh migrated database and its own queue prefix, and close() leaves nothing behind', async () => {
    const t = await createTestCore(SettingsHolder, { corpusDir: '/corpus' });
    expect(t.core.settings).toBe(t.settings);
    expect(t.settings).toMatchObject({ databaseUrl: t.database.url, redisUrl: testRedisUrl(), corpusDir: '/corpus' });
    expect(t.settings.modelsFile).toMatch(/configs[/\\]models\.yaml$/);
    expect(existsSync(t.settings.modelsFile)).toBe(true);
    const client = new Client({ connectionString: t.database.url });
    await client.connect();
    const { rows } = await client.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'runs'");
    await client.end();
    expect(rows[0].n).toBe(1);

    const redis = new Redis(testRedisUrl());
    await redis.set(`${t.settings.queuePrefix}:stage-sql:1`, '1');
    writeFileSync(join(t.dataDir, 'sweep.yaml'), 'name: x\n');
    await t.close();
    expect(t.core.closed).toBe(true);
    expect(await redis.exists(`${t.settings.queuePrefix}:stage-sql:1`)).toBe(0);
    redis.disconnect();
    expect(existsSync(t.dataDir)).toBe(false);
    expect(await databaseExists(t.database.name)).toBe(false);
  });
});

describe('useTestCore', () => {
  let used: TestCore<SettingsHolder> | undefined;
  describe('in a describe block', () => {
    const testCore = useTestCore(SettingsHolder);
    it('has the core built when the tests run', async () => {
      expect(testCore.core.settings).toBe(testCore.settings);
      expect(await databaseExists(testCore.database.name)).toBe(true);
      used = testCore;
    });
  });
  it('closed it after the block', async () => {
    expect(used?.core.closed).toBe(true);
    expect(await databaseExists(used!.database.name)).toBe(false);
    expect(existsSync(used!.dataDir)).toBe(false);
  });
});
