import { join } from 'node:path';
import { startE2eStack, type E2eStack } from './support/e2e-stack';

jest.setTimeout(300_000);

describe('sqlsweep index build: schema indexes built by retrieval workers as jobs', () => {
  let e2e: E2eStack;
  let indexDir: string;

  beforeAll(async () => {
    e2e = await startE2eStack({ simulator: false });
    indexDir = join(e2e.dataDir, 'indexes');
  });
  afterAll(() => e2e?.stop());

  it('builds a table and a column index per database once, then lists them', async () => {
    const built = await e2e.cli(['index', 'build', 'minibench']);
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
    expect(built.stdout).toMatch(/8 index jobs for minibench@[0-9a-f]{12} \(4 databases x table, column\)/);
    expect(built.stdout).toMatch(/built 8\/8/);

    const status = await e2e.cli(['index', 'status', '--dir', indexDir, '--json']);
    expect(status.code).toBe(0);
    const listing = JSON.parse(status.stdout) as { indexes: Array<{ kind: string; dbId: string; documents: number }> };
    expect(listing.indexes).toHaveLength(8);
    const flights = listing.indexes.filter((i) => i.dbId === 'flights');
    expect(flights.map((i) => i.kind).sort()).toEqual(['column', 'table']);
    expect(flights.find((i) => i.kind === 'table')!.documents).toBe(8);

    // The same jobs again: the ids exist, nothing is rebuilt, the listing is unchanged.
    const again = await e2e.cli(['index', 'build', 'minibench']);
    expect(again.code).toBe(0);
    const status2 = await e2e.cli(['index', 'status', '--dir', indexDir, '--json']);
    expect(JSON.parse(status2.stdout).indexes).toHaveLength(8);
  });
});
