import type { LlmResponse } from '@sqlsweep/llm';
import { fewShotGenerate } from './methods/baselines/few-shot';
import { generateStage as drChainGenerate, reviseStage } from './methods/dr-chain/stages';
import { correctionRounds } from './methods/rb-sql/correction';
import { generatePlainStage as rbSqlGeneratePlain, generateStage as rbSqlGenerate } from './methods/rb-sql/generate';
import { r3Generate, r3GenerateDirect } from './methods/r3/r3';
import { generateStage as ucsSqlGenerate } from './methods/ucs-sql/stages';
import { zeroShotGenerate } from './methods/zero-shot';
import { parseSqlAnswer, stripComments } from './parse-sql';
import type { GeneratedSql } from './stages/common';
import { parseSqlCorpus, type CorpusAnswer } from './parse-sql.corpus';
import type { StageContext } from './stage-context';

interface ParsingStage { implementation: { parse(response: LlmResponse, ctx: StageContext): unknown } }

/** The `sql` a stage's output carries for an answer, the stage called exactly as a run calls it. */
const sqlOf = (stage: ParsingStage, answer: string, inputs: Record<string, unknown> = {}) =>
  (stage.implementation.parse({ output: answer } as LlmResponse, { inputs, params: { fullSchemaAfter: 2 } } as unknown as StageContext) as GeneratedSql).sql;

const correctionCheck = { previous: { sql: 'SELECT 0', attempts: 0 }, needsCorrection: true, errorClass: 'syntax', feedback: '' };
const revisionFeedback = { iteration: 1, sql: 'SELECT 0', revisions: 0, stopped: false, execution: '', contents: '' };

/** Every method's final-SQL stage. */
const finalSqlStages: Record<string, (answer: string) => string | null> = {
  'zero-shot.generate': (a) => sqlOf(zeroShotGenerate, a),
  'few-shot.generate': (a) => sqlOf(fewShotGenerate, a),
  'rb-sql.generate': (a) => sqlOf(rbSqlGenerate, a),
  'rb-sql.generate-plain': (a) => sqlOf(rbSqlGeneratePlain, a),
  'rb-sql.correct-1': (a) => sqlOf(correctionRounds[0].correct, a, { check: correctionCheck }),
  'r3.generate': (a) => sqlOf(r3Generate, a),
  'r3.generate-direct': (a) => sqlOf(r3GenerateDirect, a),
  'ucs-sql.generate': (a) => sqlOf(ucsSqlGenerate, a),
  'dr-chain.generate': (a) => sqlOf(drChainGenerate, a),
  'dr-chain.revise.1': (a) => sqlOf(reviseStage(1), a, { feedback: revisionFeedback }),
};

/** The stages whose prompt an answer of this shape replies to (a plain answer can reach any stage: models ignore formats). */
const stagesFor = (entry: CorpusAnswer): string[] => (entry.shape === 'organized' ? ['rb-sql.generate'] : Object.keys(finalSqlStages));

describe('the final-SQL answer corpus', () => {
  it('holds at least 60 answers in each style of model', () => {
    expect(parseSqlCorpus.length).toBeGreaterThanOrEqual(60);
    expect(new Set(parseSqlCorpus.map((e) => e.id)).size).toBe(parseSqlCorpus.length);
    for (const style of ['gpt-4', 'claude', 'small-open'] as const) expect(parseSqlCorpus.filter((e) => e.style === style).length).toBeGreaterThanOrEqual(12);
  });

  const cases = parseSqlCorpus.flatMap((entry) => stagesFor(entry).map((stage) => [entry.id, stage, entry] as const));
  it.each(cases)('%s through %s', (_id, stage, entry) => {
    expect(finalSqlStages[stage](entry.answer)).toBe(entry.sql);
  });
});

describe('parseSqlAnswer', () => {
  it.each([
    ['a fenced sql block', 'Here you go:\n```sql\nSELECT name\nFROM t;\n```', 'SELECT name FROM t'],
    ['the last of several blocks', '```sql\nSELECT 1\n```\nbetter:\n```sql\nSELECT 2\n```', 'SELECT 2'],
    ['an unlabelled fence', '```\nselect a from b\n```', 'select a from b'],
    ['bare SQL after prose', 'The query is SELECT count(*) FROM t', 'SELECT count(*) FROM t'],
    ['a CTE', 'WITH x AS (SELECT 1) SELECT * FROM x;', 'WITH x AS (SELECT 1) SELECT * FROM x'],
  ])('accepts %s', (_n, raw, sql) => {
    expect(parseSqlAnswer(raw)).toEqual({ ok: true, sql });
  });

  it('reports answers without a query, keeping nothing', () => {
    expect(parseSqlAnswer('I cannot answer that.')).toEqual({ ok: false, error: 'no SQL query found in the answer' });
    expect(parseSqlAnswer('```sql\n;\n```')).toEqual({ ok: false, error: 'the SQL block is empty' });
    expect(parseSqlAnswer('```sql\n-- nothing to do\n```')).toEqual({ ok: false, error: 'the SQL block is empty' });
    expect(parseSqlAnswer('I would select the rows with a filter, with care.')).toEqual({ ok: false, error: 'no SQL query found in the answer' });
    expect(parseSqlAnswer('```json\n{"sql": "SELECT 1"}\n```')).toEqual({ ok: false, error: 'no SQL query found in the answer' });
  });

  it('takes the block under the label the stage names, else the last query block', () => {
    const answer = 'SQL:\n```sql\nSELECT a FROM t\n```\nAlso possible:\n```sql\nSELECT b FROM t\n```';
    expect(parseSqlAnswer(answer)).toEqual({ ok: true, sql: 'SELECT b FROM t' });
    expect(parseSqlAnswer(answer, { prefer: 'labelled', label: 'SQL' })).toEqual({ ok: true, sql: 'SELECT a FROM t' });
    expect(parseSqlAnswer('```sql\nSELECT c FROM t\n```', { prefer: 'labelled', label: 'SQL' })).toEqual({ ok: true, sql: 'SELECT c FROM t' });
  });

  it('passes over skeletons when a query is there, and prefers them when the stage asks for one', () => {
    const answer = '```sql\nSELECT _ FROM _ WHERE _ = _\n```\n```sql\nSELECT name FROM t WHERE id = 1\n```\n```sql\nSELECT _ FROM _\n```';
    expect(parseSqlAnswer(answer)).toEqual({ ok: true, sql: 'SELECT name FROM t WHERE id = 1' });
    expect(parseSqlAnswer(answer, { expect: 'skeleton' })).toEqual({ ok: true, sql: 'SELECT _ FROM _' });
    expect(parseSqlAnswer('```sql\nSELECT [column_name] FROM [table_name]\n```')).toEqual({ ok: true, sql: 'SELECT [column_name] FROM [table_name]' });
  });
});

describe('stripComments', () => {
  it('removes comments but not comment markers inside literals and quoted names', () => {
    expect(stripComments("SELECT '--x', \"a--b\" -- c\nFROM t /* d */")).toBe("SELECT '--x', \"a--b\" \nFROM t ");
    expect(stripComments("SELECT 'it''s -- fine' FROM t")).toBe("SELECT 'it''s -- fine' FROM t");
    expect(stripComments('SELECT a /* unclosed')).toBe('SELECT a ');
  });
});
