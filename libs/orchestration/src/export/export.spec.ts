import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBirdPredictions, readGoldFile, readSpiderPredictions } from '@sqlsweep/sql-sandbox';
import { birdPredictionFile, goldFile, NO_PREDICTION_SQL, spiderPredictionFile } from './prediction-files';
import { toCsv, toJsonl } from './result-tables';

const lines = [
  { sql: 'SELECT name\nFROM singer\tWHERE age > 3', dbId: 'concert_singer' },
  { sql: null, dbId: 'pets_1' },
  { sql: '   ', dbId: 'pets_1' },
];

function write(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'export-spec-')), 'f');
  writeFileSync(file, text);
  return file;
}

describe('prediction files', () => {
  it('writes a Spider file the official reader reads back line for line, a missing prediction failing', () => {
    expect(readSpiderPredictions(write(spiderPredictionFile(lines)))).toEqual(['SELECT name FROM singer WHERE age > 3', NO_PREDICTION_SQL, NO_PREDICTION_SQL]);
  });

  it('writes a BIRD file the official reader reads back with the db ids', () => {
    expect(readBirdPredictions(write(birdPredictionFile(lines)))).toEqual([
      { sql: 'SELECT name FROM singer WHERE age > 3', dbId: 'concert_singer' },
      { sql: NO_PREDICTION_SQL, dbId: 'pets_1' },
      { sql: NO_PREDICTION_SQL, dbId: 'pets_1' },
    ]);
  });

  it('writes a gold file the reader splits at the last tab', () => {
    expect(readGoldFile(write(goldFile([{ goldSql: "SELECT 'a\tb'", dbId: 'x' }])))).toEqual([{ sql: "SELECT 'a b'", dbId: 'x' }]);
  });
});

describe('result tables', () => {
  it('quotes CSV fields holding commas, quotes or line breaks, and leaves nulls empty', () => {
    expect(toCsv([{ a: 'x,y', b: 'say "hi"', c: null, d: true }, { a: 'two\nlines', b: 1.5, c: 0, d: false }])).toBe(
      'a,b,c,d\r\n"x,y","say ""hi""",,true\r\n"two\nlines",1.5,0,false\r\n',
    );
  });

  it('writes a header even without rows when the columns are named', () => {
    expect(toCsv([], ['a', 'b'])).toBe('a,b\r\n');
  });

  it('writes one JSON document per line', () => {
    expect(toJsonl([{ a: 1 }, { b: 'x\ny' }]).split('\n').filter(Boolean).map((l) => JSON.parse(l))).toEqual([{ a: 1 }, { b: 'x\ny' }]);
  });
});
