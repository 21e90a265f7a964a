import { gateSqlText, gateStatement } from './statement-gate';

const opts = { maxSqlLength: 1000 };

describe('gateSqlText', () => {
  it('refuses denied keywords outside strings and comments, in any case, and quoted load_extension', () => {
    expect(gateSqlText("attach 'x.db' as x", opts)).toBe('ATTACH is not allowed');
    expect(gateSqlText('SELECT 1; PRAGMA writable_schema = 1', opts)).toBe('PRAGMA is not allowed');
    expect(gateSqlText('SELECT "load_extension"(\'x.so\')', opts)).toBe('LOAD_EXTENSION is not allowed');
  });

  it('lets the same words through inside strings, comments and longer names', () => {
    expect(gateSqlText("SELECT 'attach' AS vacuum_state FROM t -- pragma\n/* detach */", opts)).toBeUndefined();
  });

  it('refuses over-long SQL and NUL characters', () => {
    expect(gateSqlText('x'.repeat(1001), opts)).toBe('SQL is 1001 characters, over the 1000 limit');
    expect(gateSqlText('SELECT 1\u0000', opts)).toBe('SQL contains a NUL character');
  });
});

describe('gateStatement', () => {
  it('needs a reader that is read-only', () => {
    expect(gateStatement({ reader: true, readonly: true })).toBeUndefined();
    expect(gateStatement({ reader: false, readonly: true })).toMatch(/only statements that return rows/);
    expect(gateStatement({ reader: true, readonly: false })).toMatch(/would write/);
  });
});
