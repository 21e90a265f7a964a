import { goldTablesOf } from './gold-tables';

describe('goldTablesOf', () => {
  const schema = ['member', 'major', 'Event', 'attendance'];

  it('reads the tables of a join through node-sql-parser, named as in the schema', () => {
    const sql = "SELECT T2.major_name FROM member AS T1 INNER JOIN major AS T2 ON T1.link_to_major = T2.major_id WHERE T1.first_name = 'Angela'";
    expect(goldTablesOf(sql, schema)).toEqual({ tables: ['major', 'member'], source: 'parser' });
  });

  it('finds tables of subqueries and quoted names', () => {
    const sql = 'SELECT COUNT(*) FROM `event` WHERE event_id IN (SELECT link_to_event FROM attendance)';
    expect(goldTablesOf(sql, schema).tables).toEqual(['Event', 'attendance']);
  });

  it('falls back to identifier tokens for SQL the parser rejects, ignoring string literals', () => {
    const sql = "SELECT name FROM member WHERE note = 'major' AND ((( broken";
    expect(goldTablesOf(sql, schema)).toEqual({ tables: ['member'], source: 'tokens' });
  });
});
