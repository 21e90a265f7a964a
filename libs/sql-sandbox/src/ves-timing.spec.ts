import type { ExecuteRequest } from './execution-result';
import { SandboxPool } from './sandbox-pool';
import { createSpecDatabase, type SpecDatabase } from './spec-database';
import { timeForVes } from './ves-timing';

describe('timeForVes', () => {
  let database: SpecDatabase;
  let dbPath: string;
  let pool: SandboxPool;
  const calls: ExecuteRequest[] = [];
  const recording = { execute: (req: ExecuteRequest) => (calls.push(req), pool.execute(req)) };

  beforeAll(() => {
    database = createSpecDatabase('ves.sqlite', 'CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);');
    dbPath = database.dbPath;
    pool = new SandboxPool({ size: 1, standby: false });
  });
  beforeEach(() => (calls.length = 0));
  afterAll(async () => {
    await pool?.close();
    database?.remove();
  });

  it('times the prediction first, then the gold, each with one untimed warm-up run before `repeats` timed ones', async () => {
    const timed = await timeForVes(recording, dbPath, 'SELECT x FROM t', 'SELECT x FROM t ORDER BY x', { repeats: 4, deadlineMs: 5_000 });
    expect(calls.map((c) => [c.sql, c.repeat, c.deadlineMs])).toEqual([
      ['SELECT x FROM t ORDER BY x', 5, 5_000],
      ['SELECT x FROM t', 5, 5_000],
    ]);
    expect(timed?.predMs).toHaveLength(4);
    expect(timed?.goldMs).toHaveLength(4);
    expect([...timed!.predMs, ...timed!.goldMs].every((ms) => ms >= 0)).toBe(true);
  });

  it('gives undefined, and does not time the gold, when the prediction fails on re-run', async () => {
    expect(await timeForVes(recording, dbPath, 'SELECT x FROM t', 'SELECT nope FROM t', { repeats: 3 })).toBeUndefined();
    expect(calls).toHaveLength(1);
  });

  it('gives undefined when the gold fails', async () => {
    expect(await timeForVes(recording, dbPath, 'SELECT nope FROM t', 'SELECT x FROM t', { repeats: 3 })).toBeUndefined();
  });
});
