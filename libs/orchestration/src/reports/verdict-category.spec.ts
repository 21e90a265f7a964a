import { verdictCategory } from './verdict-category';

describe('verdictCategory', () => {
  const r = (over: Partial<Parameters<typeof verdictCategory>[0]>) => ({ correct: false, errored: false, parseFailed: false, reason: 'row-mismatch', ...over });

  it('keeps correct, wrong result, SQL that failed to execute, no SQL and pipeline errors apart', () => {
    expect(verdictCategory(r({ correct: true, reason: 'match' }))).toBe('correct');
    expect(verdictCategory(r({}))).toBe('wrong-result');
    expect(verdictCategory(r({ reason: 'row-count (gold 2, pred 3)' }))).toBe('wrong-result');
    expect(verdictCategory(r({ reason: 'pred-error (syntax): near "SELEC"' }))).toBe('sql-error');
    expect(verdictCategory(r({ reason: 'pred-timeout' }))).toBe('sql-error');
    expect(verdictCategory(r({ parseFailed: true, reason: 'parse failure: no SQL found in the answer' }))).toBe('no-sql');
    expect(verdictCategory(r({ errored: true, reason: 'stage failed: provider 500' }))).toBe('pipeline-error');
    expect(verdictCategory(r({ reason: 'gold-timeout' }))).toBe('pipeline-error');
  });
});
