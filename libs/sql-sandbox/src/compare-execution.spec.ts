import { compareExecution } from './compare-execution';
import type { ExecutionResult } from './execution-result';
import type { SqlValue } from './sql-value';

const ok = (rows: SqlValue[][], columns = rows[0]?.map((_, i) => `c${i}`) ?? []): ExecutionResult => ({
  status: 'ok', columns, rows, truncated: false, elapsedMs: 1,
});
const spider = (gold: SqlValue[][], pred: SqlValue[][], goldSql = 'SELECT a FROM t') =>
  compareExecution('spider', ok(gold), ok(pred), { goldSql });
const bird = (gold: SqlValue[][], pred: SqlValue[][]) => compareExecution('bird', ok(gold), ok(pred), { goldSql: '' });

describe('compareExecution, Spider semantics', () => {
  it('ignores row order unless the gold has ORDER BY anywhere (lower-cased substring)', () => {
    expect(spider([[1], [2]], [[2], [1]]).correct).toBe(true);
    expect(spider([[1], [2]], [[2], [1]], 'SELECT a FROM t ORDER BY a').correct).toBe(false);
    expect(spider([[1], [2]], [[2], [1]], 'SELECT a FROM (SELECT a FROM t order by b)').correct).toBe(false);
    expect(spider([[1], [2]], [[1], [2]], 'SELECT a FROM t ORDER BY a').correct).toBe(true);
  });

  it('compares multisets: duplicates count', () => {
    expect(spider([[1], [1], [2]], [[1], [2], [2]]).correct).toBe(false);
    expect(spider([[1], [1]], [[1]]).reason).toMatch(/row-count/);
  });

  it('accepts any column permutation, including wide results', () => {
    expect(spider([[1, 'a'], [2, 'b']], [['a', 1], ['b', 2]]).correct).toBe(true);
    const gold: SqlValue[][] = [[1, 'x', 2.5, null, 'p'], [2, 'y', 3.5, null, 'q']];
    const pred = gold.map((r) => [r[4], r[2], r[0], r[3], r[1]]);
    expect(spider(gold, pred).correct).toBe(true);
    expect(spider([[1, 'a'], [2, 'b']], [['a', 2], ['b', 1]]).correct).toBe(false);
  });

  it('treats 1 == 1.0 as equal, text "1" as different, and two empty results as equal', () => {
    expect(spider([[1]], [[{ real: 1 }]]).correct).toBe(true);
    expect(spider([[1]], [['1']]).correct).toBe(false);
    expect(spider([], []).correct).toBe(true);
    expect(spider([[1.25]], [[1.2500001]]).correct).toBe(false); // no float tolerance
  });

  it('needs equal column counts', () => {
    expect(spider([[1, 2]], [[1]]).reason).toMatch(/column-count/);
  });
});

describe('compareExecution, BIRD semantics', () => {
  it('compares sets: duplicates and order ignored, column order matters', () => {
    expect(bird([[1], [1], [2]], [[2], [1]]).correct).toBe(true);
    expect(bird([[1, 'a']], [['a', 1]]).correct).toBe(false);
    expect(bird([[{ int: '9007199254740993' }]], [[{ int: '9007199254740993' }]]).correct).toBe(true);
    expect(bird([[{ int: '9007199254740993' }]], [[{ real: 9007199254740992 }]]).correct).toBe(false);
  });
});

describe('compareExecution failures', () => {
  const err: ExecutionResult = { status: 'error', errorKind: 'syntax', message: 'near "x"', elapsedMs: 0 };
  it('scores an error, a timeout or a truncated result as wrong and says why', () => {
    expect(compareExecution('spider', ok([[1]]), err, { goldSql: '' })).toEqual({ correct: false, reason: 'pred-error (syntax): near "x"' });
    expect(compareExecution('bird', ok([[1]]), { status: 'timeout', elapsedMs: 30_000 }, { goldSql: '' }).reason).toBe('pred-timeout');
    expect(compareExecution('bird', err, ok([[1]]), { goldSql: '' }).reason).toMatch(/^gold-error/);
    expect(compareExecution('bird', ok([[1]]), { ...ok([[1]]), truncated: true } as ExecutionResult, { goldSql: '' }).reason).toMatch(/pred-truncated/);
  });
});
