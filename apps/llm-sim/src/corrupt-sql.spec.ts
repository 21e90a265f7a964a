import Database from 'better-sqlite3';
import { corruptSql, wrongTable, type CorruptionKind } from './corrupt-sql';
import { seededRng } from './rng';

const JOIN_SQL =
  "SELECT T2.major_name FROM member AS T1 INNER JOIN major AS T2 ON T1.link_to_major = T2.major_id WHERE T1.first_name = 'Angela' AND T1.last_name = 'Sanders'";
const AGG_SQL = 'SELECT max(age), avg(age) FROM singer WHERE country = "France" ORDER BY age DESC LIMIT 3';

describe('corruptSql', () => {
  it('is deterministic for a seed and differs from the gold', () => {
    for (let i = 0; i < 50; i++) {
      const a = corruptSql(JOIN_SQL, seededRng('s', i), ['first_name', 'last_name', 'major_id', 'department']);
      const b = corruptSql(JOIN_SQL, seededRng('s', i), ['first_name', 'last_name', 'major_id', 'department']);
      expect(a).toEqual(b);
      expect(a.sql).not.toBe(JOIN_SQL);
    }
  });

  it('produces every kind of mistake, each in the expected shape', () => {
    const seen = new Map<CorruptionKind, string>();
    for (let i = 0; i < 400; i++) {
      for (const gold of [JOIN_SQL, AGG_SQL]) {
        const c = corruptSql(gold, seededRng('kinds', i), ['first_name', 'last_name', 'department', 'name']);
        seen.set(c.kind, `${gold} => ${c.sql}`);
      }
    }
    expect([...seen.keys()].sort()).toEqual(['missing_join_condition', 'syntax_error', 'wrong_aggregate', 'wrong_column', 'wrong_literal', 'wrong_order']);
    expect(seen.get('missing_join_condition')).toMatch(/INNER JOIN major AS T2 WHERE/);
    expect(seen.get('wrong_order')).toMatch(/ASC LIMIT 3$/);
  });

  it('keeps non-syntax mistakes executable, so they fail on results, not on parsing', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE major (major_id TEXT, major_name TEXT, department TEXT);
             CREATE TABLE member (member_id TEXT, first_name TEXT, last_name TEXT, link_to_major TEXT);
             CREATE TABLE singer (name TEXT, country TEXT, age INTEGER)`);
    const columns = ['major_id', 'major_name', 'department', 'member_id', 'first_name', 'last_name', 'link_to_major'];
    let executable = 0;
    let syntax = 0;
    for (let i = 0; i < 200; i++) {
      const c = corruptSql(JOIN_SQL, seededRng('exec', i), columns);
      let ok = true;
      try {
        db.prepare(c.sql);
      } catch {
        ok = false;
      }
      if (c.kind === 'syntax_error') {
        syntax++;
        expect(ok).toBe(false);
      } else if (ok) executable++;
    }
    expect(syntax).toBeGreaterThan(0);
    // wrong_column may pick a column of the other table, which SQLite rejects; most mistakes still run.
    expect(executable / (200 - syntax)).toBeGreaterThan(0.7);
    db.close();
  });
});

describe('wrongTable', () => {
  it('puts a table the prompt shows in place of the missing gold table, in FROM/JOIN and as a qualifier', () => {
    const gold = "SELECT stadium.name, count(*) FROM concert JOIN stadium ON concert.stadium_id = stadium.stadium_id WHERE stadium.name = 'stadium'";
    const c = wrongTable(gold, ['stadium'], ['concert', 'singer'], seededRng(1));
    expect(c).toEqual({ kind: 'wrong_table', sql: "SELECT singer.name, count(*) FROM concert JOIN singer ON concert.stadium_id = singer.stadium_id WHERE singer.name = 'stadium'" });
  });

  it('has nothing to offer when the prompt shows no other table', () => {
    expect(wrongTable('SELECT name FROM stadium', ['stadium'], [], seededRng(1))).toBeNull();
    expect(wrongTable('SELECT name FROM stadium', ['stadium'], ['stadium'], seededRng(1))).toBeNull();
  });
});
