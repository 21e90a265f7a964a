import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import type { LlmResponse } from '@sqlsweep/llm';
import { SandboxPool } from '@sqlsweep/sql-sandbox';
import type { StageContext } from '../../stage-context';
import { correctionRounds, signalsMissingSchema } from './correction';
import { applyRuleFixes } from './rule-fixes';
import type { ChainSql, ExecutionCheck, FilteredSchema } from './types';

/** A BIRD-like database: a table and columns whose names SQLite reads only when quoted. */
const schema = {
  dbId: 'schools',
  tables: [
    { name: 'frpm', columns: [{ name: 'CDSCode', type: 'TEXT', primaryKey: true }, { name: 'Free Meal Count (K-12)', type: 'REAL' }, { name: 'County Name', type: 'TEXT' }] },
    { name: 'satscores', columns: [{ name: 'cds', type: 'TEXT' }, { name: 'AvgScrMath', type: 'INTEGER' }] },
  ],
} as unknown as DatabaseSchema;

const response = (output: string): LlmResponse => ({
  output, usage: { inputTokens: 0, outputTokens: 0 } as LlmResponse['usage'], costUsd: 0, latencyMs: 0, cached: false, simulated: true, provider: 'sim', model: 'sim-strong',
});

describe('RB-SQL missing-schema signal', () => {
  it.each([
    ['MISSING SCHEMA\n```sql\nSELECT a FROM t\n```'],
    ['**MISSING SCHEMA**\n```sql\nSELECT a FROM t\n```'],
    ['Missing schema: the table `district` is not shown.\n```sql\nSELECT a FROM t\n```'],
    ['```sql\n-- MISSING SCHEMA\nSELECT a FROM t\n```'],
    ['I could not find the enrollment column\nMISSING_SCHEMA.'],
    ['The column `enrollment` is missing from the schema, so I guessed its table.\n```sql\nSELECT 1\n```'],
    ['The table district is not included in the provided schema.'],
  ])('is seen in %j', (answer) => {
    expect(signalsMissingSchema(answer)).toBe(true);
  });

  it.each([
    ['```sql\nSELECT a FROM t\n```'],
    ['There is no missing schema; the error was a typo.\n```sql\nSELECT a FROM t\n```'],
    ['Nothing is missing from the schema.'],
  ])('is not seen in %j', (answer) => {
    expect(signalsMissingSchema(answer)).toBe(false);
  });
});

describe('RB-SQL rule-based corrections', () => {
  it('quotes schema names with spaces or punctuation written bare, and leaves quoted ones and strings alone', () => {
    expect(applyRuleFixes("SELECT T1.Free Meal Count (K-12) FROM frpm AS T1 WHERE County Name = 'County Name'", schema)).toEqual({
      sql: "SELECT T1.`Free Meal Count (K-12)` FROM frpm AS T1 WHERE `County Name` = 'County Name'", applied: ['quote-names'],
    });
    expect(applyRuleFixes('SELECT `County Name` FROM frpm', schema)).toEqual({ sql: 'SELECT `County Name` FROM frpm', applied: [] });
  });

  it('keeps the first statement, adds a missing SELECT and turns ILIKE into LIKE', () => {
    expect(applyRuleFixes('SELECT cds FROM satscores; SELECT 1;', schema)).toEqual({ sql: 'SELECT cds FROM satscores', applied: ['single-statement'] });
    expect(applyRuleFixes("cds FROM satscores WHERE cds ILIKE '01%';", schema)).toEqual({
      sql: "SELECT cds FROM satscores WHERE cds LIKE '01%'", applied: ['single-statement', 'select-prefix', 'ilike'],
    });
    expect(applyRuleFixes("SELECT ';' FROM satscores", schema).applied).toEqual([]);
    expect(applyRuleFixes('(SELECT cds FROM satscores) UNION (SELECT CDSCode FROM frpm)', schema).applied).toEqual([]);
    expect(applyRuleFixes('`County Name`, CDSCode FROM frpm', schema)).toEqual({ sql: 'SELECT `County Name`, CDSCode FROM frpm', applied: ['select-prefix'] });
  });
});

describe('RB-SQL check and correction rounds', () => {
  let dir: string;
  let pool: SandboxPool;
  const filtered: FilteredSchema = { tables: [{ table: 'frpm', columns: ['CDSCode', 'Free Meal Count (K-12)'] }], metrics: {} };
  const item = { itemId: 'dev-0', dbId: 'schools', question: 'What is the free meal count of school 01?', evidence: null, goldSql: 'SELECT 1' };

  const context = (inputs: Record<string, unknown>): StageContext => ({
    item, schema, inputs, dbPath: join(dir, 'schools.sqlite'), semantics: 'bird',
    params: { fullSchemaAfter: 2, model: 'sim-strong', temperature: 0.1, maxTokens: 1024, sampleIndex: 0, cacheNamespace: '' },
    services: { sandbox: pool, sqlDeadlineMs: 2_000 },
  }) as unknown as StageContext;
  const check = async (round: number, previous: ChainSql) =>
    (await correctionRounds[round - 1].check.implementation.run(context({ previous }))).output as ExecutionCheck;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-rb-sql-check-'));
    const db = new Database(join(dir, 'schools.sqlite'));
    db.exec("CREATE TABLE frpm (CDSCode TEXT PRIMARY KEY, `Free Meal Count (K-12)` REAL, `County Name` TEXT); INSERT INTO frpm VALUES ('01', 12.0, 'Alameda');");
    db.exec("CREATE TABLE satscores (cds TEXT, AvgScrMath INTEGER); INSERT INTO satscores VALUES ('01', 500);");
    db.close();
    pool = new SandboxPool({ size: 1, deadlineMs: 2_000, maxRows: 10, standby: false });
  });
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fixes a query by rule before asking the LLM, and records the rules', async () => {
    const fixed = await check(1, { sql: "SELECT Free Meal Count (K-12) FROM frpm WHERE CDSCode = '01';", attempts: 0 });
    expect(fixed).toMatchObject({
      needsCorrection: false,
      previous: { sql: "SELECT `Free Meal Count (K-12)` FROM frpm WHERE CDSCode = '01'", ruleFixes: ['single-statement', 'quote-names'] },
    });
    const unfixable = await check(1, { sql: 'SELECT enrollment FROM frpm', attempts: 0 });
    expect(unfixable).toMatchObject({ needsCorrection: true, errorClass: 'schema-linking', previous: { sql: 'SELECT enrollment FROM frpm' } });
    expect(unfixable.previous.ruleFixes).toBeUndefined();
  });

  it('swaps in the full schema right after an answer that signals missing schema, even when its query runs', async () => {
    const previous: ChainSql = { sql: 'SELECT frpm WHERE', attempts: 0 };
    const first: ExecutionCheck = { previous, needsCorrection: true, errorClass: 'syntax', feedback: 'SQLite error: near "WHERE": syntax error' };
    const answer = '**Missing schema**: the SAT scores table is not shown, so I used frpm.\n```sql\nSELECT CDSCode FROM frpm\n```';
    const corrected = correctionRounds[0].correct.implementation.parse(response(answer), context({ check: first, schema: filtered })) as ChainSql;
    expect(corrected).toMatchObject({ sql: 'SELECT CDSCode FROM frpm', fullSchema: true, fullSchemaShown: false, missingSchema: true });
    const second = await check(2, corrected);
    expect(second).toMatchObject({ needsCorrection: true, errorClass: 'schema-linking' });
    const prompt = correctionRounds[1].correct.implementation.prompt(context({ check: second, schema: filtered }));
    expect(prompt.messages[1].content).toContain('CREATE TABLE satscores');
    const again = correctionRounds[1].correct.implementation.parse(response('MISSING SCHEMA\n```sql\nSELECT cds FROM satscores\n```'), context({ check: second, schema: filtered })) as ChainSql;
    expect(again).toMatchObject({ sql: 'SELECT cds FROM satscores', fullSchemaShown: true });
    expect(await check(3, again)).toMatchObject({ needsCorrection: false });
  });

  it('keeps the filtered schema for the first two rounds and shows the full one from round 3 (the authors\' 0.8 x 3 rounds)', () => {
    const previous: ChainSql = { sql: 'SELECT enrollment FROM frpm', attempts: 0 };
    const failed: ExecutionCheck = { previous, needsCorrection: true, errorClass: 'schema-linking', feedback: 'SQLite error: no such column: enrollment' };
    const shown = (round: number) => correctionRounds[round - 1].correct.implementation.prompt(context({ check: failed, schema: filtered })).messages[1].content;
    expect(shown(1)).not.toContain('satscores');
    expect(shown(2)).not.toContain('satscores');
    expect(shown(3)).toContain('satscores');
  });
});
