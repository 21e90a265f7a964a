import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spiderHardness } from './spider-hardness';
import { parseSpiderSql, tokenizeSpiderSql } from './spider-sql-parser';

const SPIDER = resolve(__dirname, '../../../test/fixtures/benchmark-samples/spider-sample');

describe('tokenizeSpiderSql', () => {
  it('keeps string values whole, lower-cases the rest, splits brackets and merges comparison operators', () => {
    expect(tokenizeSpiderSql("SELECT count(*) FROM t WHERE Name = 'Le Mans' AND a > = 3 AND b != 2")).toEqual([
      'select', 'count', '(', '*', ')', 'from', 't', 'where', 'name', '=', '"Le Mans"', 'and', 'a', '>=', '3', 'and', 'b', '!=', '2',
    ]);
  });
  it('refuses an odd number of quotes, as the official tokenizer does', () => {
    expect(() => tokenizeSpiderSql("SELECT * FROM t WHERE a = 'it''s")).toThrow(/unexpected quote/);
  });
});

describe('parseSpiderSql', () => {
  it('builds the process_sql structure: joins, conditions, nesting, set operations', () => {
    const sql = parseSpiderSql(
      'SELECT T1.name, count(*) FROM a AS T1 JOIN b AS T2 ON T1.id = T2.aid WHERE T1.x LIKE "%z%" OR T1.y IN (SELECT y FROM c) GROUP BY T1.name ORDER BY count(*) DESC LIMIT 3 EXCEPT SELECT name FROM d',
    );
    expect(sql.from.table_units).toEqual([['table_unit', '__a__'], ['table_unit', '__b__']]);
    expect(sql.where[1]).toBe('or');
    expect(sql.where[0]).toEqual([false, 9, [0, [0, '__t1.x__', false], null], '"%z%"', null]);
    expect((sql.where[2] as unknown[])[3]).toMatchObject({ select: [false, [[0, [0, [0, '__y__', false], null]]]] });
    expect(sql.orderBy).toEqual(['desc', [[0, [3, '__all__', false], null]]]);
    expect(sql.limit).toBe(1);
    expect(sql.except).not.toBeNull();
    expect(spiderHardness(sql)).toBe('extra');
  });

  it('grades the same hardness as Spider\'s own parse for all 297 dev questions', () => {
    const dev = JSON.parse(readFileSync(join(SPIDER, 'dev.json'), 'utf8')) as Array<{ query: string; sql: unknown }>;
    const differing = dev.filter((q) => spiderHardness(parseSpiderSql(q.query)) !== spiderHardness(q.sql)).map((q) => q.query);
    expect(differing).toEqual([]);
  });

  it('parses every one of the 7000 training queries', () => {
    const train = JSON.parse(readFileSync(join(SPIDER, 'train_spider.json'), 'utf8')) as Array<{ query: string }>;
    const failures = train.flatMap((q) => {
      try {
        parseSpiderSql(q.query);
        return [];
      } catch (err) {
        return [(err as Error).message];
      }
    });
    expect(failures).toEqual([]);
  });
});
