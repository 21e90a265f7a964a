import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { commonEnvSchema, parseEnv, type CommonEnv } from '@sqlsweep/config';
import { ensureMigrated, migrateDown, pendingMigrations, queryRows, readMigrations } from '@sqlsweep/db';
import { llmBudgetPrefix, RedisRateBudget } from '@sqlsweep/llm';
import { createRunUsingModel, createTestDatabase, removeQueuePrefixKeys, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';
import { showStatus } from './status';

/** `sqlsweep status` reads a run without an orchestrator core: the same lines, from the database and (running runs) Redis. */
describe('sqlsweep status', () => {
  let t: TestDatabase;
  let env: CommonEnv;
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null, lazyConnect: true });
  beforeAll(async () => {
    t = await createTestDatabase();
    env = parseEnv(commonEnvSchema, { DATABASE_URL: t.url, REDIS_URL: testRedisUrl(), SQLSWEEP_QUEUE_PREFIX: `status_${randomBytes(4).toString('hex')}` }, 'test');
  });
  afterAll(async () => {
    await removeQueuePrefixKeys(env.REDIS_URL, env.SQLSWEEP_QUEUE_PREFIX);
    redis.disconnect();
    await t.drop();
  });

  async function status(runId?: string, withEnv = env): Promise<string[]> {
    const lines: string[] = [];
    await showStatus(runId, (l) => lines.push(...l.split('\n')), withEnv);
    return lines;
  }

  it('a running run: its header, progress, and the pauses of the models it uses (only those)', async () => {
    const runId = await createRunUsingModel(t.db, 'gpt-paid');
    const budget = new RedisRateBudget({ redis, keyPrefix: llmBudgetPrefix(env.SQLSWEEP_QUEUE_PREFIX) });
    expect((await status(runId)).some((l) => l.includes('paused'))).toBe(false);
    await budget.pause('gpt-paid', 'quota exhausted at provider openai: insufficient_quota');
    await budget.pause('not-in-this-run', 'quota exhausted elsewhere');
    const lines = await status(runId);
    expect(lines[0]).toBe(`run ${runId}: running [simulated], 1 items, 0 stage jobs planned, 0 reused`);
    expect(lines.filter((l) => l.includes('paused'))).toEqual([
      'model gpt-paid is paused: quota exhausted at provider openai: insufficient_quota. Its jobs wait; once the account has quota again: sqlsweep models resume gpt-paid',
    ]);
  });

  it('a finished run ends with its leaderboard; without an id, the recent runs; an unknown id is an error', async () => {
    const runId = await createRunUsingModel(t.db, 'sim-strong');
    await t.db.updateTable('runs').set({ status: 'done' }).where('id', '=', runId).execute();
    const lines = await status(runId);
    expect(lines[0]).toBe(`run ${runId}: done [simulated], 1 items, 0 stage jobs planned, 0 reused`);
    expect(lines.some((l) => l.startsWith('Leaderboard'))).toBe(true);
    expect((await status()).some((l) => l.startsWith(runId))).toBe(true);
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(status(missing)).rejects.toThrow(`no run ${missing}`);
  });

  it('takes a run by the first hex digits of its id, and says plainly when they name no run, several, or are not an id', async () => {
    const runId = await createRunUsingModel(t.db, 'sim-weak');
    const header = `run ${runId}: running [simulated], 1 items, 0 stage jobs planned, 0 reused`;
    expect((await status(runId.slice(0, 8)))[0]).toBe(header);
    expect((await status(runId.toUpperCase()))[0]).toBe(header);
    // Two copies of that run under ids sharing their first 8 digits.
    const twins = ['ab12cd34-0000-4000-8000-000000000001', 'ab12cd34-0000-4000-8000-000000000002'];
    for (const id of twins) {
      await queryRows(t.db)`INSERT INTO runs SELECT (jsonb_populate_record(NULL::runs, to_jsonb(r) || jsonb_build_object('id', ${id}::text))).* FROM runs r WHERE r.id = ${runId}::uuid`;
    }
    await expect(status('ab12cd34')).rejects.toMatchObject({ name: 'UsageError', message: `run id prefix "ab12cd34" is ambiguous: it matches ${twins.join(', ')}; give more digits` });
    expect((await status(twins[1]))[0]).toMatch(new RegExp(`^run ${twins[1]}: running`));
    await expect(status('ab12cd35')).rejects.toMatchObject({ name: 'UsageError', message: 'no run ab12cd35' });
    await expect(status('not-an-id')).rejects.toMatchObject({ name: 'UsageError', message: '"not-an-id" is not a run id: give the id, or its first 4 or more hex digits' });
  });

  it('migrates a database that is behind, and creates and migrates one that does not exist', async () => {
    const latest = (await readMigrations()).map((m) => m.name).sort().at(-1)!;
    expect(await pendingMigrations(t.url)).toEqual([]);
    expect(await migrateDown(t.url, 1)).toEqual([latest]);
    expect(await pendingMigrations(t.url)).toEqual([latest]);
    expect(await ensureMigrated(t.url)).toEqual([latest]);
    expect(await ensureMigrated(t.url)).toEqual([]);

    const fresh = new URL(t.url);
    fresh.pathname = `/sqlsweep_status_${randomBytes(6).toString('hex')}`;
    expect(await pendingMigrations(fresh.toString())).toBeNull();
    try {
      await status(undefined, { ...env, DATABASE_URL: fresh.toString() });
      expect(await pendingMigrations(fresh.toString())).toEqual([]);
    } finally {
      const admin = new URL(t.url);
      admin.pathname = '/postgres';
      const c = new Client({ connectionString: admin.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${fresh.pathname.slice(1)}"`);
      await c.end();
    }
  });
});
