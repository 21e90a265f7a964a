import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readColumnDescriptions } from './description-csv';

describe('readColumnDescriptions', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-desc-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts header variants (BOM, spaces, capitals, "value_descriptions") and trims names', async () => {
    const file = join(dir, 'club.csv');
    writeFileSync(file, '\uFEFFOriginal_Column_Name , column name,Column Description,data_format,value_descriptions\r\n  club_id ,club id,,integer,"1: open\r\n2: closed"\r\n');
    expect(await readColumnDescriptions(file)).toEqual([
      { originalColumnName: 'club_id', columnName: 'club id', dataFormat: 'integer', valueDescription: '1: open\r\n2: closed' },
    ]);
  });

  it('names the file when the header has no original_column_name', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, 'name,description\nx,y\n');
    await expect(readColumnDescriptions(file)).rejects.toThrow(`${file}: header has no original_column_name column (found: name, description)`);
  });
});
