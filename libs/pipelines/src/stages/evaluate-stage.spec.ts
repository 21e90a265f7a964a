import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SandboxPool, type ExecutionResult } from '@sqlsweep/sql-sandbox';
import type { StageContext } from '../stage-context';
import { evaluateStage, goldStage, type EvaluateOutput } from './common';

/** A one-table SQLite file (`shop.sqlite`) and a sandbox pool over it, made for the describe block that calls this. */
function useShopSandbox(deadlineMs: number): { readonly dir: string; readonly pool: SandboxPool } {
  const shop = {} as { dir: string; pool: SandboxPool };
  beforeAll(() => {
    shop.dir = mkdtempSync(join(tmpdir(), 'sqlsweep-evaluate-'));
    const db = new Database(join(shop.dir, 'shop.sqlite'));
    db.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'pen'), (2, 'ink');");
    db.close();
    shop.pool = new SandboxPool({ size: 1, deadlineMs, maxRows: 10, standby: false });
  });
  afterAll(async () => {
    await shop.pool.close();
    rmSync(shop.dir, { recursive: true, force: true });
  });
  return shop;
}

describe('the evaluate stage with a gold result that cannot be compared', () => {
  const shop = useShopSandbox(300);
  const item = { itemId: 'dev-1', dbId: 'shop', question: 'q', evidence: null, goldSql: 'SELECT name FROM item ORDER BY id' };
  /** The parts of a worker's context these two stages read; nothing else of it is used. */
  const context = (inputs: Record<string, unknown>, goldSql = item.goldSql) => ({
    item: { ...item, goldSql }, dbPath: join(shop.dir, 'shop.sqlite'), semantics: 'bird', inputs,
    services: { sandbox: shop.pool, sqlDeadlineMs: 300 },
  }) as unknown as StageContext;
  const evaluate = async (gold: ExecutionResult, sql = 'SELECT name FROM item ORDER BY id') =>
    (await evaluateStage.implementation.run(context({ gold, prediction: { sql } }))).output as EvaluateOutput;
  const gold = async (goldSql: string) => (await goldStage.implementation.run(context({}, goldSql))).output as ExecutionResult;


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

describe('the evaluate stage scores through the named scorer of the dataset format', () => {
  const shop = useShopSandbox(2_000);
  const goldSql = "SELECT name FROM item WHERE name = 'none'";
  const context = (semantics: 'bird' | 'spider', inputs: Record<string, unknown>) => ({
    item: { itemId: 'dev-1', dbId: 'shop', question: 'q', evidence: null, goldSql }, dbPath: join(shop.dir, 'shop.sqlite'), semantics, inputs,
    services: { sandbox: shop.pool, sqlDeadlineMs: 2_000 },
  }) as unknown as StageContext;
  const score = async (semantics: 'bird' | 'spider', sql: string) => {
    const gold = (await goldStage.implementation.run(context(semantics, {}))).output as ExecutionResult;
    return (await evaluateStage.implementation.run(context(semantics, { gold, prediction: { sql } }))).output as EvaluateOutput;
  };


  it('records bird-ex@2 and scores an empty prediction against an empty gold result as BIRD does (correct)', async () => {
    expect(await score('bird', ' ')).toMatchObject({ correct: true, errored: false, scorer: 'bird-ex@2', reason: expect.stringContaining('empty prediction') });
  });

  it('runs a write on a throw-away copy: DELETE ... WHERE 1=0 matches an empty gold, and the replica keeps its rows', async () => {
    const output = await score('bird', 'DELETE FROM item WHERE id > 0');
    expect(output).toMatchObject({ correct: true, scorer: 'bird-ex@2', reason: expect.stringContaining('throw-away in-memory copy') });
    const db = new Database(join(shop.dir, 'shop.sqlite'), { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM item').get()).toEqual({ n: 2 });
    db.close();
  });

  it('records spider-ex@2 for Spider and keeps only the first statement as the official script does', async () => {
    expect(await score('spider', "SELECT name FROM item WHERE name = 'none'; this is prose")).toMatchObject({ correct: true, scorer: 'spider-ex@2' });
  });

  it('flags a refusal the official script would not make as divergent, in the output and its reason', async () => {
    const output = await score('bird', "ATTACH DATABASE ':memory:' AS scratch");
    expect(output).toMatchObject({ correct: false, scorer: 'bird-ex@2', divergent: expect.stringContaining('refused by the sandbox') });
    expect(output.reason).toContain('[divergent: ');
  });
});

describe('the evaluate stage with a final answer that held no SQL', () => {
  const shop = useShopSandbox(2_000);
  const goldSql = 'SELECT name FROM item ORDER BY id';
  const context = (inputs: Record<string, unknown>) => ({
    item: { itemId: 'dev-1', dbId: 'shop', question: 'q', evidence: null, goldSql }, dbPath: join(shop.dir, 'shop.sqlite'), semantics: 'bird', inputs,
    services: { sandbox: shop.pool, sqlDeadlineMs: 2_000 },
  }) as unknown as StageContext;
  const evaluate = async (prediction: { sql: string | null; parseError?: string }) => {
    const gold = (await goldStage.implementation.run(context({}))).output as ExecutionResult;
    return (await evaluateStage.implementation.run(context({ gold, prediction }))).output as EvaluateOutput;
  };


  it('gives the parse-failure verdict, with the parser\'s reason, not a wrong answer or an error', async () => {
    const output = await evaluate({ sql: null, parseError: 'no SQL found in the answer' });
    expect(output).toMatchObject({
      correct: false, errored: false, parseFailed: true, predictedSql: null, scorer: 'bird-ex@2', metrics: { ves: 0 },
      reason: 'parse failure: no SQL found in the answer',
    });
    expect(output.predicted.message).toContain('not executed');
  });

  it('gives it without a parse error too (a method that records none)', async () => {
    expect(await evaluate({ sql: null })).toMatchObject({ parseFailed: true, correct: false, errored: false, reason: 'parse failure: unparseable answer' });
  });

  it('scores SQL that does not run as a wrong answer, not a parse failure', async () => {
    expect(await evaluate({ sql: 'SELECT nope FROM item' })).toMatchObject({ correct: false, errored: false, parseFailed: false });
  });

  it('scores SQL kept after a failed revision (parseError beside SQL) on that SQL: a chain that ends with SQL did not fail to parse', async () => {
    expect(await evaluate({ sql: goldSql, parseError: 'revision 2 held no SQL; kept the previous query' })).toMatchObject({ correct: true, parseFailed: false });
  });
});
