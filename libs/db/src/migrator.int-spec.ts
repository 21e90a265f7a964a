import { Client } from 'pg';
// Test helpers build on db; this spec-only import must not make the project graph circular.
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { migrateDown, migrateToLatest } from './migrator';

describe('migrations', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => t.drop());

  async function tables(): Promise<string[]> {
    const c = new Client({ connectionString: t.url });
    await c.connect();
    const { rows } = await c.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
    await c.end();
    return rows.map((r) => r.tablename);
  }

  it('a template copy is fully migrated, and migrating again applies nothing', async () => {
    expect(await tables()).toEqual(expect.arrayContaining(['runs', 'stage_results', 'item_results', 'schema_migrations']));
    expect(await migrateToLatest(t.url)).toEqual([]);
  });

  it('stores stage outputs and traces with lz4 on a server built with it', async () => {
    const c = new Client({ connectionString: t.url });
    await c.connect();
    const { rows: [{ lz4 }] } = await c.query<{ lz4: boolean }>("SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'");
    const { rows } = await c.query<{ attname: string; attcompression: string }>(
      "SELECT attname, attcompression FROM pg_attribute WHERE attrelid = 'stage_results'::regclass AND attname IN ('output', 'trace') ORDER BY 1");
    await c.end();
    const method = lz4 ? 'l' : '';
    expect(rows).toEqual([{ attname: 'output', attcompression: method }, { attname: 'trace', attcompression: method }]);
  });

  it('every migration reverts and re-applies cleanly', async () => {
    await t.db.destroy();
    const reverted = await migrateDown(t.url, 100);
    expect(reverted.length).toBeGreaterThan(0);
    expect(await tables()).toEqual(['schema_migrations']);
    expect((await migrateToLatest(t.url)).sort()).toEqual([...reverted].sort());
  });
});
