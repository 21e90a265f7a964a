import type { DatabaseSchema } from '@sqlsweep/datasets';
import { columnDocuments, columnText, ragChunkDocuments, sqlSkeletonDocuments, tableDocuments, tableText } from './builders';

const database: DatabaseSchema = {
  dbId: 'student_club',
  sqlitePath: '/dev/null',
  tables: [
    {
      name: 'member',
      columns: [
        { name: 'member_id', type: 'text', primaryKey: true, sampleValues: ['rec1x5zBFVdN2pkBa'] },
        { name: 'position', type: 'text', primaryKey: false, description: 'The position the member holds in the club', valueDescription: 'Member, Treasurer, President', sampleValues: ['Member', 'Inactive'] },
      ],
    },
  ],
};

describe('document builders (METHODS.md formats)', () => {
  it('renders RB-SQL table text', () => {
    expect(tableText('member', database.tables[0].columns)).toBe('name: member | member_id: text | position: text');
    expect(tableDocuments(database)).toEqual([{ id: 'student_club.member', kind: 'table', text: 'name: member | member_id: text | position: text', payload: { dbId: 'student_club', table: 'member' } }]);
  });

  it('renders RB-SQL column text with description, examples and value description', () => {
    expect(columnText('member', database.tables[0].columns[1])).toBe('member || position: The position the member holds in the club [Member, Inactive] Member, Treasurer, President');
    expect(columnDocuments(database).map((d) => d.id)).toEqual(['student_club.member.member_id', 'student_club.member.position']);
    expect(columnDocuments(database)[0].payload).toEqual({ dbId: 'student_club', table: 'member', column: 'member_id' });
  });

  it('keeps the source pair of every SQL skeleton', () => {
    const docs = sqlSkeletonDocuments([{ itemId: 'train-1', dbId: 'x', question: 'How many?', sql: 'SELECT count(*) FROM t' }], () => 'select count ( * ) from [table_name]');
    expect(docs[0]).toMatchObject({ id: 'sql-skeleton:train-1', text: 'select count ( * ) from [table_name]', payload: { sql: 'SELECT count(*) FROM t', question: 'How many?' } });
  });

  it('cuts a corpus into chunks of at most the token budget, at word boundaries', () => {
    const words = Array.from({ length: 23 }, (_, i) => `w${i}`);
    const countTokens = (text: string) => text.split(/\s+/).length * 2; // two tokens per word
    const chunks = ragChunkDocuments([{ sourceId: 'doc.txt', text: words.join(' ') }], countTokens, 10);
    expect(chunks.map((c) => c.id)).toEqual(['doc.txt#0', 'doc.txt#1', 'doc.txt#2', 'doc.txt#3', 'doc.txt#4']);
    expect(chunks.map((c) => c.payload.tokens)).toEqual([10, 10, 10, 10, 6]);
    expect(chunks.map((c) => c.text).join(' ')).toBe(words.join(' '));
    expect(() => ragChunkDocuments([], countTokens, 0)).toThrow(/chunkTokens/);
  });
});
