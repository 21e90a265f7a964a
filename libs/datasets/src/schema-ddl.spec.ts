import { renderSchemaDdl } from './schema-ddl';
import type { DatabaseSchema } from './types';

const column = (name: string, primaryKey = false) => ({ name, type: 'text', primaryKey, sampleValues: [] });

describe('renderSchemaDdl (remembered per schema and table object)', () => {
  it('renders a schema once and the same text again, and a filtered copy as its own tables', () => {
    const schema: DatabaseSchema = {
      dbId: 'x', sqlitePath: '',
      tables: [{ name: 'a', columns: [column('id', true), column('v')] }, { name: 'b', columns: [column('id', true)] }],
    };
    const full = 'CREATE TABLE a (\n  id text,\n  v text,\n  PRIMARY KEY (id)\n);\n\nCREATE TABLE b (\n  id text,\n  PRIMARY KEY (id)\n);';
    expect(renderSchemaDdl(schema)).toBe(full);
    expect(renderSchemaDdl(schema)).toBe(full);
    // Filtered copies, as prompt renderers make them: tables left out, columns left out of a table.
    expect(renderSchemaDdl({ ...schema, tables: [schema.tables[1]] })).toBe('CREATE TABLE b (\n  id text,\n  PRIMARY KEY (id)\n);');
    expect(renderSchemaDdl({ ...schema, tables: [{ ...schema.tables[0], columns: [schema.tables[0].columns[1]] }] })).toBe('CREATE TABLE a (\n  v text\n);');
    expect(renderSchemaDdl(schema)).toBe(full);
  });
});
