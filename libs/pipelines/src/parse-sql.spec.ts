import { parseSqlAnswer } from './parse-sql';

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
  });
});
