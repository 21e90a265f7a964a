import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBirdPredictions, readGoldFile, readSpiderPredictions } from './eval-files';

describe('official file readers', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('reads gold lines and names the line that has no db_id', () => {
    expect(readGoldFile(write('g.sql', 'SELECT 1\tdb1\r\n\nSELECT 2 \t db2\n'))).toEqual([{ sql: 'SELECT 1', dbId: 'db1' }, { sql: 'SELECT 2', dbId: 'db2' }]);
    const bad = write('bad.sql', 'SELECT 1\tdb1\nSELECT 2\n');
    expect(() => readGoldFile(bad)).toThrow(`${bad}: line 2 is not "SQL<TAB>db_id"`);
  });

  it('keeps a blank Spider prediction line as an empty item and cuts lines at the first TAB', () => {
    expect(readSpiderPredictions(write('p.sql', 'SELECT 1\tconcert_singer\n\nSELECT 3\n\n'))).toEqual(['SELECT 1', '', 'SELECT 3']);
  });

  it('reads BIRD predictions in index order and refuses gaps and stray keys', () => {
    const sep = '\t----- bird -----\t';
    expect(readBirdPredictions(write('p.json', JSON.stringify({ 1: `SELECT 2${sep}db`, 0: `SELECT 1${sep}db`, 2: null })))).toEqual([
      { sql: 'SELECT 1', dbId: 'db' },
      { sql: 'SELECT 2', dbId: 'db' },
      { sql: ' ' },
    ]);
    const gap = write('gap.json', JSON.stringify({ 0: 'a', 2: 'b' }));
    expect(() => readBirdPredictions(gap)).toThrow(`${gap}: key "2" is not an index in 0..1`);
    const notJson = write('x.json', 'SELECT 1');
    expect(() => readBirdPredictions(notJson)).toThrow(/not a JSON object of predictions/);
  });
});
