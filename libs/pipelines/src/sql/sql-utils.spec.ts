import type { DatabaseSchema } from '@sqlsweep/datasets';
import { linkingMetrics, sqlSkeleton, touchedSchema } from './index';

const col = (name: string, references?: { table: string; column: string }) => ({ name, type: 'TEXT', primaryKey: false, sampleValues: [], references });
const schema: DatabaseSchema = {
  dbId: 'music', sqlitePath: '/nonexistent',
  tables: [
    { name: 'Singer', columns: [col('Singer_ID'), col('Name'), col('Country'), col('Age')] },
    { name: 'concert', columns: [col('concert_ID'), col('Year'), col('Stadium_ID')] },
    { name: 'singer_in_concert', columns: [col('concert_ID', { table: 'concert', column: 'concert_ID' }), col('Singer_ID', { table: 'Singer', column: 'Singer_ID' })] },
    { name: 'stadium name', columns: [col('Stadium_ID'), col('Capacity')] },
  ],
};

describe('sqlSkeleton', () => {
  it('masks tables, columns and literals, keeping keywords, functions and operators', () => {
    expect(sqlSkeleton("SELECT name, count(*) FROM singer WHERE age >= 30.5 AND country = 'France' GROUP BY name", schema))
      .toBe('SELECT [column_name], COUNT(*) FROM [table_name] WHERE [column_name] >= [value] AND [column_name] = [value] GROUP BY [column_name]');
  });

  it('masks aliases as tables and alias-qualified columns as columns', () => {
    expect(sqlSkeleton('select T1.name from singer as T1 join singer_in_concert T2 on T1.singer_id = T2.singer_id', schema))
      .toBe('SELECT [table_name].[column_name] FROM [table_name] AS [table_name] JOIN [table_name] [table_name] ON [table_name].[column_name] = [table_name].[column_name]');
  });

  it('treats quoted identifiers as names and Spider double-quoted strings as values', () => {
    expect(sqlSkeleton('SELECT `Capacity` FROM "stadium name" WHERE "Stadium_ID" = "abc" -- note', schema))
      .toBe('SELECT [column_name] FROM [table_name] WHERE [column_name] = [value]');
  });

  it('keeps CAST type names and masks every literal of an IN list, nested queries included', () => {
    expect(sqlSkeleton('SELECT CAST(age AS REAL) / 2 FROM singer WHERE singer_id IN (SELECT singer_id FROM singer_in_concert WHERE concert_id IN (1, 2));'))
      .toBe('SELECT CAST([column_name] AS REAL) / [value] FROM [table_name] WHERE [column_name] IN (SELECT [column_name] FROM [table_name] WHERE [column_name] IN ([value], [value]))');
  });

  it('gives two queries of the same shape the same skeleton', () => {
    expect(sqlSkeleton("SELECT a FROM t WHERE b = 'x' LIMIT 3")).toBe(sqlSkeleton('select c  from u where d = 7 limit 1'));
  });
});

describe('touchedSchema', () => {
  it('resolves aliases and unqualified columns to the schema spelling, in schema order', () => {
    expect(touchedSchema('SELECT T1.name, year FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id JOIN concert ON concert.concert_id = T2.concert_id', schema))
      .toEqual({
        tables: ['Singer', 'concert', 'singer_in_concert'],
        columns: [
          { table: 'Singer', column: 'Singer_ID' }, { table: 'Singer', column: 'Name' },
          { table: 'concert', column: 'concert_ID' }, { table: 'concert', column: 'Year' },
          { table: 'singer_in_concert', column: 'concert_ID' }, { table: 'singer_in_concert', column: 'Singer_ID' },
        ],
      });
  });

  it('leaves out forged names and result aliases', () => {
    expect(touchedSchema('SELECT nickname, COUNT(*) AS n FROM singer JOIN ghosts ORDER BY n', schema)).toEqual({ tables: ['Singer'], columns: [] });
  });

  it('reads alias-qualified columns used before the FROM clause inside subqueries', () => {
    const t = touchedSchema('SELECT name FROM singer WHERE singer_id NOT IN (SELECT x.singer_id FROM singer_in_concert x)', schema);
    expect(t.columns).toEqual([{ table: 'Singer', column: 'Singer_ID' }, { table: 'Singer', column: 'Name' }, { table: 'singer_in_concert', column: 'Singer_ID' }]);
  });
});

describe('linkingMetrics', () => {
  it('scores tables and columns case-insensitively', () => {
    const m = linkingMetrics(
      { tables: ['singer', 'concert'], columns: [{ table: 'Singer', column: 'name' }] },
      { tables: ['Singer'], columns: [{ table: 'singer', column: 'Name' }, { table: 'singer', column: 'age' }] },
    );
    expect(m.tables).toEqual({ precision: 0.5, recall: 1, f1: 2 / 3 });
    expect(m.columns.precision).toBe(1);
    expect(m.columns.recall).toBe(0.5);
  });

  it('scores an empty prediction against a non-empty gold as zero', () => {
    expect(linkingMetrics({ tables: [], columns: [] }, { tables: ['a'], columns: [] }).tables).toEqual({ precision: 0, recall: 0, f1: 0 });
  });
});

describe('sqlSkeleton with parenthesised clauses', () => {
  it('keeps clause keywords before a parenthesis as keywords, and reads a FROM subquery', () => {
    expect(sqlSkeleton('SELECT a FROM (SELECT b FROM t WHERE (c = 1)) AS s WHERE (s.a > 2)'))
      .toBe('SELECT [column_name] FROM (SELECT [column_name] FROM [table_name] WHERE ([column_name] = [value])) AS [table_name] WHERE ([table_name].[column_name] > [value])');
  });
});

describe('touchedSchema with a FROM subquery', () => {
  it('reads the inner tables and leaves the subquery alias out', () => {
    expect(touchedSchema('SELECT s.name FROM (SELECT name FROM singer WHERE age > 30) AS s', schema))
      .toEqual({ tables: ['Singer'], columns: [{ table: 'Singer', column: 'Name' }, { table: 'Singer', column: 'Age' }] });
  });
});
