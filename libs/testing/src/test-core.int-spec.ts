import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { createTestCore, testRedisUrl, type TestCoreSettings } from './test-core';

/** The smallest thing createTestCore can build: it keeps its settings and says whether it was closed. */
class SettingsHolder {
  closed = false;
  constructor(readonly settings: TestCoreSettings & { corpusDir?: string }) {}
  async close(): Promise<void> {
    this.closed = true;
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
    const admin = new Client({ connectionString: t.database.url.replace(/\/[^/]*$/, '/postgres') });
    await admin.connect();
    const left = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [t.database.name]);
    await admin.end();
    expect(left.rowCount).toBe(0);
  });
});
