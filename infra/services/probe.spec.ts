import { versionAtLeast } from './probe';
import { redactUrl } from './redis-settings';
import { databaseOf, withDatabase } from './postgres-database';

describe('versionAtLeast', () => {
  it.each([
    ['7.0.15', '6.2', true],
    ['6.2.0', '6.2', true],
    ['6.0.16', '6.2', false],
    ['5.0.7', '6.2', false],
    ['10.0', '6.2', true],
  ])('%s >= %s is %s', (have, need, expected) => {
    expect(versionAtLeast(have, need)).toBe(expected);
  });
});

describe('URL helpers', () => {
  it('hides passwords before printing', () => {
    expect(redactUrl('redis://:s3cret@cache:6379')).toBe('redis://:***@cache:6379');
    expect(redactUrl('postgres://app:pw@db:5432/sqlsweep')).toBe('postgres://app:***@db:5432/sqlsweep');
    expect(redactUrl('redis+sentinel://:s3cret@s1:26379,s2:26379/main')).toBe('redis+sentinel://:***@s1:26379,s2:26379/main');
  });

  it('swaps and reads the database of a Postgres URL', () => {
    expect(withDatabase('postgres://postgres@127.0.0.1:5432/postgres', 'sqlsweep')).toBe(
      'postgres://postgres@127.0.0.1:5432/sqlsweep',
    );
    expect(databaseOf('postgres://postgres@127.0.0.1:5432/sqlsweep')).toBe('sqlsweep');
    expect(databaseOf('postgres://postgres@127.0.0.1:5432')).toBe('postgres');
  });
});
