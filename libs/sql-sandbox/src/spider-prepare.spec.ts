import { removeDistinct, spiderPrepare, spiderPrepareGold } from './spider-prepare';

describe('spiderPrepare', () => {
  it('replaces every substring "value" with 1, case-sensitively, even inside names and strings', () => {
    expect(spiderPrepare("SELECT * FROM t WHERE a = 'value' AND b = value")).toBe("SELECT * FROM t WHERE a = '1' AND b = 1");
    expect(spiderPrepare('SELECT max_value, VALUE FROM t')).toBe('SELECT max_1, VALUE FROM t');
  });

  it('normalises spaced operators and drops DISTINCT tokens, but not inside strings or longer names', () => {
    expect(spiderPrepare('SELECT count(DISTINCT a) FROM t WHERE b > = 1 AND c ! = 2')).toBe('SELECT count( a) FROM t WHERE b >= 1 AND c != 2');
    expect(removeDistinct("SELECT distinct is_distinct FROM t WHERE x = 'distinct'")).toBe("SELECT  is_distinct FROM t WHERE x = 'distinct'");
  });

  it('rewrites YEAR(CURDATE()) and leaves the gold\'s "value" alone', () => {
    expect(spiderPrepareGold('SELECT YEAR(CURDATE()) - age, value FROM t')).toBe('SELECT 2020- age, value FROM t');
  });
});
