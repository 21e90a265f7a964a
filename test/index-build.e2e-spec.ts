import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { runCli } from './support/e2e';

jest.setTimeout(300_000);

describe('sqlsweep index build: schema indexes built by retrieval workers as jobs', () => {
  let t: TestDatabase;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    t = await createTestDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'sqlsweep-index-'));
    env = { DATABASE_URL: t.url, SQLSWEEP_QUEUE_PREFIX: testQueuePrefix(), SQLSWEEP_DATA_DIR: dataDir };
    expect((await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env)).code).toBe(0);
  });
  afterAll(async () => t?.drop());

  it('builds a table and a column index per database once, then lists them', async () => {
    const built = await runCli(['index', 'build', 'minibench'], env);
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
    expect(built.stdout).toMatch(/8 index jobs for minibench@[0-9a-f]{12} \(4 databases x table, column\)/);
    expect(built.stdout).toMatch(/built 8\/8/);

    const status = await runCli(['index', 'status', '--dir', join(env.SQLSWEEP_DATA_DIR!, 'indexes'), '--json'], env);
    expect(status.code).toBe(0);
    const listing = JSON.parse(status.stdout) as { indexes: Array<{ kind: string; dbId: string; documents: number }> };
    expect(listing.indexes).toHaveLength(8);
    const flights = listing.indexes.filter((i) => i.dbId === 'flights');
    expect(flights.map((i) => i.kind).sort()).toEqual(['column', 'table']);
    expect(flights.find((i) => i.kind === 'table')!.documents).toBe(8);

    // The same jobs again: the ids exist, nothing is rebuilt, the listing is unchanged.
    const again = await runCli(['index', 'build', 'minibench'], env);
    expect(again.code).toBe(0);
    const status2 = await runCli(['index', 'status', '--dir', join(env.SQLSWEEP_DATA_DIR!, 'indexes'), '--json'], env);
    expect(JSON.parse(status2.stdout).indexes).toHaveLength(8);
  });
});
