import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SandboxPool, type ExecutionResult } from '@sqlsweep/sql-sandbox';
import type { StageContext } from '../stage-context';
import { evaluateStage, goldStage, type EvaluateOutput } from './common';

describe('the evaluate stage with a gold result that cannot be compared', () => {
  let dir: string;
  let pool: SandboxPool;
  const item = { itemId: 'dev-1', dbId: 'shop', question: 'q', evidence: null, goldSql: 'SELECT name FROM item ORDER BY id' };
  /** The parts of a worker's context these two stages read; nothing else of it is used. */
  const context = (inputs: Record<string, unknown>, goldSql = item.goldSql) => ({
    item: { ...item, goldSql }, dbPath: join(dir, 'shop.sqlite'), semantics: 'bird', inputs,
    services: { sandbox: pool, sqlDeadlineMs: 300 },
  }) as unknown as StageContext;
  const evaluate = async (gold: ExecutionResult, sql = 'SELECT name FROM item ORDER BY id') =>
    (await evaluateStage.run(context({ gold, prediction: { sql } }))).output as EvaluateOutput;
  const gold = async (goldSql: string) => (await goldStage.run(context({}, goldSql))).output as ExecutionResult;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-evaluate-'));
    const db = new Database(join(dir, 'shop.sqlite'));
    db.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'pen'), (2, 'ink');");
    db.close();
    pool = new SandboxPool({ size: 1, deadlineMs: 300, maxRows: 10, standby: false });
  });
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('scores a prediction against gold that runs', async () => {
    expect(await evaluate(await gold(item.goldSql))).toMatchObject({ correct: true, errored: false, reason: 'match' });
  });

  it.each([
    ['timeout', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c', /^gold invalid \(timeout\): gold SQL timed out after \d+ ms$/],
    ['refused', "ATTACH DATABASE ':memory:' AS scratch", /^gold invalid \(refused\): gold SQL refused by the sandbox: /],
    ['truncated', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 11) SELECT x FROM c', /^gold invalid \(truncated\): /],
    ['error', 'SELECT nope FROM item', /^gold invalid \(error\): gold SQL fails \(syntax\): no such column: nope/],
  ])('makes an item whose gold is %s an errored item, not a wrong answer', async (_flag, goldSql, reason) => {
    const output = await evaluate(await gold(goldSql));
    expect(output).toMatchObject({ correct: false, errored: true, reason: expect.stringMatching(reason), metrics: { ves: 0 } });
  });
});
