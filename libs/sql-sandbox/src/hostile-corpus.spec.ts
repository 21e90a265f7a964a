import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxPool } from './sandbox-pool';
import { createSpecDatabase, type SpecDatabase } from './spec-database';

const DEADLINE_MS = 400;
const KILL_SLACK_MS = 200;

/** refused: an error verdict; timeout: killed at the deadline; stopped: either; contained: any verdict. */
type Expectation = 'refused' | 'timeout' | 'stopped' | 'contained';
interface Attack {
  name: string;
  sql: (dir: string) => string;
  expect: Expectation;
  /** Memory attacks get a longer deadline so that the memory limit, not the clock, has to stop them. */
  deadlineMs?: number;
}

const recursive = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)';
const crossJoin = (n: number) => `SELECT count(*) FROM ${Array.from({ length: n }, (_, i) => `big b${i}`).join(', ')}`;

/** At least 40 attacks; "contained" means any verdict is fine as long as nothing on disk changes. */
const ATTACKS: Attack[] = [
  { name: 'insert', sql: () => "INSERT INTO pets VALUES (9, 'x', 1, 1.0)", expect: 'refused' },
  { name: 'update', sql: () => 'UPDATE pets SET weight = 0', expect: 'refused' },
  { name: 'delete', sql: () => 'DELETE FROM pets', expect: 'refused' },
  { name: 'replace', sql: () => "REPLACE INTO pets VALUES (1, 'x', 1, 1.0)", expect: 'refused' },
  { name: 'insert-select', sql: () => 'INSERT INTO pets SELECT * FROM pets', expect: 'refused' },
  { name: 'cte-insert', sql: () => 'WITH x AS (SELECT 1) INSERT INTO pets SELECT 5, x, 1, 1 FROM x', expect: 'refused' },
  { name: 'update-returning', sql: () => 'UPDATE pets SET weight = 1 RETURNING *', expect: 'refused' },
  { name: 'drop table', sql: () => 'DROP TABLE pets', expect: 'refused' },
  { name: 'create table', sql: () => 'CREATE TABLE evil (x)', expect: 'refused' },
  { name: 'create temp table', sql: () => 'CREATE TEMP TABLE t AS SELECT 1', expect: 'refused' },
  { name: 'alter table', sql: () => 'ALTER TABLE pets ADD COLUMN evil TEXT', expect: 'refused' },
  { name: 'create index', sql: () => 'CREATE INDEX i ON pets (weight)', expect: 'refused' },
  { name: 'create view', sql: () => 'CREATE VIEW v AS SELECT 1', expect: 'refused' },
  { name: 'create trigger', sql: () => 'CREATE TRIGGER t AFTER INSERT ON pets BEGIN DELETE FROM pets; END', expect: 'refused' },
  { name: 'attach', sql: (d) => `ATTACH DATABASE '${d}/evil.db' AS e`, expect: 'refused' },
  { name: 'attach lower-case', sql: (d) => `attach '${d}/evil2.db' as e`, expect: 'refused' },
  { name: 'attach memory', sql: () => "ATTACH ':memory:' AS m", expect: 'refused' },
  { name: 'detach', sql: () => 'DETACH main', expect: 'refused' },
  { name: 'vacuum', sql: () => 'VACUUM', expect: 'refused' },
  { name: 'vacuum into', sql: (d) => `VACUUM INTO '${d}/copy.db'`, expect: 'refused' },
  { name: 'vacuum into behind a comment', sql: (d) => `/* harmless */ VACUUM INTO '${d}/copy2.db'`, expect: 'refused' },
  { name: 'pragma writable_schema', sql: () => 'PRAGMA writable_schema = 1', expect: 'refused' },
  { name: 'pragma query_only off', sql: () => 'PRAGMA query_only = 0', expect: 'refused' },
  { name: 'pragma journal_mode', sql: () => 'PRAGMA journal_mode = WAL', expect: 'refused' },
  { name: 'pragma user_version', sql: () => 'PRAGMA user_version = 42', expect: 'refused' },
  { name: 'pragma read', sql: () => 'PRAGMA table_info(pets)', expect: 'refused' },
  { name: 'pragma function setting query_only', sql: () => 'SELECT * FROM pragma_query_only(0)', expect: 'refused' },
  { name: 'pragma function setting writable_schema', sql: () => 'SELECT * FROM pragma_writable_schema(1)', expect: 'refused' },
  { name: 'pragma function setting journal_mode', sql: () => "SELECT * FROM pragma_journal_mode('delete')", expect: 'refused' },
  { name: 'load_extension', sql: (d) => `SELECT load_extension('${d}/evil.so')`, expect: 'refused' },
  { name: 'load_extension upper-case', sql: () => "SELECT LOAD_EXTENSION('libc.so.6', 'system')", expect: 'refused' },
  { name: 'load_extension as a quoted name', sql: (d) => `SELECT "load_extension"('${d}/evil.so')`, expect: 'refused' },
  { name: 'load_extension as a bracketed name', sql: (d) => `SELECT [load_extension]('${d}/evil.so')`, expect: 'refused' },
  { name: 'reindex', sql: () => 'REINDEX', expect: 'refused' },
  { name: 'analyze', sql: () => 'ANALYZE', expect: 'refused' },
  { name: 'begin', sql: () => 'BEGIN IMMEDIATE', expect: 'refused' },
  { name: 'savepoint', sql: () => 'SAVEPOINT s', expect: 'refused' },
  { name: 'multi-statement', sql: () => 'SELECT 1; DELETE FROM pets', expect: 'refused' },
  { name: 'multi-statement, empty statements between', sql: () => 'SELECT 1;;DELETE FROM pets', expect: 'refused' },
  { name: 'statement after a line comment', sql: () => 'SELECT 1; -- hi\nDROP TABLE pets', expect: 'refused' },
  { name: 'semicolon inside a block comment', sql: () => 'SELECT 1 /* ; */ ; DROP TABLE pets', expect: 'refused' },
  { name: 'semicolon inside a string', sql: () => "SELECT '; DROP TABLE pets; --'; DROP TABLE pets", expect: 'refused' },
  { name: 'block comment hiding the verb', sql: () => '/* SELECT */ DELETE FROM pets', expect: 'refused' },
  { name: 'line comment hiding the verb', sql: () => '-- SELECT\nDELETE FROM pets', expect: 'refused' },
  { name: 'NUL byte', sql: () => 'SELECT 1\u0000; DROP TABLE pets', expect: 'refused' },
  { name: 'create virtual table', sql: () => 'CREATE VIRTUAL TABLE f USING fts5(x)', expect: 'refused' },
  { name: 'writefile', sql: (d) => `SELECT writefile('${d}/out.txt', 'x')`, expect: 'refused' },
  { name: 'sqlite_dbpage', sql: () => 'SELECT * FROM sqlite_dbpage', expect: 'refused' },
  { name: 'over-long SQL', sql: () => `SELECT 1${' '.repeat(200_000)}`, expect: 'refused' },
  { name: 'deeply nested parentheses', sql: () => `SELECT ${'('.repeat(100_000 / 2 - 20)}1${')'.repeat(100_000 / 2 - 20)}`, expect: 'stopped' },
  { name: 'recursive CTE bomb', sql: () => `${recursive} SELECT count(*) FROM c`, expect: 'timeout' },
  { name: 'recursive CTE bomb with ORDER BY', sql: () => `${recursive} SELECT x FROM c ORDER BY x DESC LIMIT 1`, expect: 'timeout' },
  { name: 'huge cross join', sql: () => crossJoin(8), expect: 'timeout' },
  { name: 'LIKE backtracking', sql: () => `${recursive} SELECT count(*) FROM c WHERE printf('%.*c', 2000 + x % 2, 'a') LIKE '%a%a%a%a%a%a%a%b'`, expect: 'timeout' },
  { name: 'randomblob 1 GB', sql: () => 'SELECT randomblob(1000000000)', expect: 'refused' },
  { name: 'randomblob 400 MB over the memory limit', sql: () => 'SELECT length(randomblob(400000000))', expect: 'refused', deadlineMs: 10_000 },
  { name: 'hex of a 300 MB zeroblob', sql: () => 'SELECT length(hex(zeroblob(300000000)))', expect: 'refused', deadlineMs: 10_000 },
  { name: 'memory growth in a CTE', sql: () => `${recursive} SELECT length(group_concat(hex(zeroblob(1000000)))) FROM (SELECT x FROM c LIMIT 300)`, expect: 'refused', deadlineMs: 10_000 },
  { name: 'string growth', sql: () => `${recursive} SELECT length(group_concat(hex(randomblob(100000)))) FROM c`, expect: 'contained' },
  { name: 'printf width bomb', sql: () => "SELECT printf('%.*c', 2000000000, 'x')", expect: 'contained' },
  { name: 'EXPLAIN of a write', sql: () => 'EXPLAIN DELETE FROM pets', expect: 'contained' },
];

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) out[name] = createHash('sha256').update(readFileSync(join(dir, name))).digest('hex');
  return out;
}

describe('hostile SQL corpus', () => {
  let dir: string;
  let dbPath: string;
  let database: SpecDatabase;
  let pool: SandboxPool;

  beforeAll(() => {
    database = createSpecDatabase('target.sqlite', `CREATE TABLE pets (id INTEGER PRIMARY KEY, kind TEXT, age INTEGER, weight REAL);
      INSERT INTO pets VALUES (1, 'cat', 3, 12.0), (2, 'dog', 2, 13.4), (3, 'dog', 1, 9.3);
      CREATE TABLE big (n INTEGER);
      WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000) INSERT INTO big SELECT x FROM c;`);
    ({ dir, dbPath } = database);
    pool = new SandboxPool({ size: 2, deadlineMs: DEADLINE_MS, heapMb: 256, maxRows: 1000, maxResultBytes: 1 << 20 });
  });
  afterAll(async () => {
    await pool.close();
    database.remove();
  });

  it('has at least 40 attacks', () => {
    expect(ATTACKS.length).toBeGreaterThanOrEqual(40);
  });

  it('refuses or kills every attack, changes no byte, creates no file, and keeps serving', async () => {
    const before = snapshot(dir);
    const outcomes: string[] = [];
    for (const attack of ATTACKS) {
      const result = await pool.execute({ dbPath, sql: attack.sql(dir), deadlineMs: attack.deadlineMs });
      const ok =
        attack.expect === 'refused'
          ? result.status === 'error'
          : attack.expect === 'timeout' || attack.expect === 'stopped'
            ? (attack.expect === 'stopped' && result.status === 'error') ||
              (result.status === 'timeout' && result.elapsedMs <= (attack.deadlineMs ?? DEADLINE_MS) + KILL_SLACK_MS)
            : true;
      if (!ok) outcomes.push(`${attack.name}: expected ${attack.expect}, got ${JSON.stringify(result).slice(0, 200)}`);
      // Between attacks the pool must still answer an honest query correctly.
      const probe = await pool.execute({ dbPath, sql: 'SELECT count(*), sum(weight) FROM pets' });
      if (probe.status !== 'ok' || JSON.stringify(probe.rows) !== '[[3,34.7]]') outcomes.push(`${attack.name}: probe got ${JSON.stringify(probe)}`);
    }
    expect(outcomes).toEqual([]);
    expect(snapshot(dir)).toEqual(before);
    expect(pool.killLatenciesMs.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...pool.killLatenciesMs)).toBeLessThanOrEqual(KILL_SLACK_MS);
    // Every killed process is really gone (reaped), not only abandoned.
    await pool.reaped();
    expect(pool.reapLatenciesMs.length).toBeGreaterThanOrEqual(pool.killLatenciesMs.length);
  }, 120_000);

  it('survives runaways fired concurrently with honest queries', async () => {
    const runaways = Array.from({ length: 4 }, () => pool.execute({ dbPath, sql: crossJoin(8) }));
    const honest = Array.from({ length: 20 }, () => pool.execute({ dbPath, sql: 'SELECT kind FROM pets ORDER BY id' }));
    const results = await Promise.all([...runaways, ...honest]);
    expect(results.slice(0, 4).map((r) => r.status)).toEqual(['timeout', 'timeout', 'timeout', 'timeout']);
    for (const r of results.slice(4)) expect(r).toMatchObject({ status: 'ok', rows: [['cat'], ['dog'], ['dog']] });
  }, 60_000);

  it('reports truncation by the row cap and the size cap instead of cutting silently', async () => {
    const byRows = await pool.execute({ dbPath, sql: `${recursive} SELECT x FROM c` });
    expect(byRows).toMatchObject({ status: 'ok', truncated: true });
    expect(byRows.status === 'ok' && byRows.rows.length).toBe(1000);
    const bySize = await pool.execute({ dbPath, sql: `${recursive} SELECT hex(randomblob(50000)) FROM c LIMIT 100` });
    expect(bySize).toMatchObject({ status: 'ok', truncated: true });
    expect(bySize.status === 'ok' && bySize.rows.length).toBeLessThan(100);
  }, 30_000);
});
