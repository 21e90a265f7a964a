import { queryRows, verdictCategorySql } from '@sqlsweep/db';
// nx-ignore-next-line
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { verdictCategory, type VerdictFields } from './verdict-category';

/** The SQL rule (counts, filters) and the TypeScript rule (rows, exports) give every kind of item result the same category. */
describe('verdict category in SQL and in TypeScript', () => {
  let t: TestDatabase;
  beforeAll(async () => { t = await createTestDatabase(); });
  afterAll(async () => { await t?.drop(); });

  const cases: VerdictFields[] = [
    { correct: true, errored: false, parseFailed: false, reason: 'match' },
    { correct: false, errored: false, parseFailed: false, reason: 'row-mismatch' },
    { correct: false, errored: false, parseFailed: false, reason: 'pred-error (syntax): near "SELEC"' },
    { correct: false, errored: false, parseFailed: false, reason: 'pred-timeout' },
    { correct: false, errored: false, parseFailed: false, reason: 'pred-truncated: result over the row or size cap, cannot be compared' },
    { correct: false, errored: false, parseFailed: true, reason: 'parse failure: no SQL found in the answer' },
    { correct: false, errored: true, parseFailed: false, reason: 'stage failed: provider answered 500' },
    { correct: false, errored: true, parseFailed: false, reason: 'gold invalid (timeout): gold SQL timed out' },
    { correct: false, errored: false, parseFailed: false, reason: 'gold-error (syntax): no such table' },
  ];

  it.each(cases)('agrees on %o', async (c) => {
    const [row] = await queryRows<{ category: string }>(t.db)`
      SELECT ${verdictCategorySql('ir')} AS category
      FROM (SELECT ${c.correct}::boolean AS correct, ${c.errored}::boolean AS errored, ${c.parseFailed}::boolean AS parse_failed, ${c.reason}::text AS reason) ir`;
    expect(row.category).toBe(verdictCategory(c));
  });
});
